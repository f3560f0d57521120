package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.pettingllms.core.util.Failures;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Http;
import org.pettingllms.http.Slots;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tinker API's futures on the server's side: each operation runs on an executor and is answered by a request
 * id; a request re-sent under the same key ({@code model_id#seq_id}) gets its first id; a poll waits a while (20 s
 * on the server: under the SDK's 45 s read timeout) for the result, then answers {@code try_again}; a failed operation answers
 * {@code {"error", "category"}} ({@code user} for invalid input). A result once answered stays
 * {@code retrievedGraceMillis} more (a client whose answer was lost polls again at once), then is dropped; one never
 * polled is dropped after {@link #KEEP_MINUTES}. A keyed request's future exists before its id is published under the
 * key, so a retry that polls the id at once never finds it missing.
 */
final class TinkerFutures {
    private static final Logger LOG = LoggerFactory.getLogger(TinkerFutures.class);
    static final long KEEP_MINUTES = 10;

    private final Map<String, CompletableFuture<ObjectNode>> futures = new ConcurrentHashMap<>();
    private final Map<String, String> byKey = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final Map<String, String> keyOf = new ConcurrentHashMap<>();
    private final long holdMillis;
    private final long retrievedGraceMillis;
    private final Slots slots;

    /** @param holdMillis how long a poll waits for a result before it answers {@code try_again} */
    TinkerFutures(long holdMillis) {
        this(holdMillis, 30_000, new Slots(Integer.MAX_VALUE));
    }

    /**
     * @param retrievedGraceMillis how long an answered result stays for a client that polls again
     * @param slots                requests queued or running at once ({@code --max-concurrent}): a new one past
     *                             them is refused with a 429, which Tinker's clients retry
     */
    TinkerFutures(long holdMillis, long retrievedGraceMillis, Slots slots) {
        this.holdMillis = holdMillis;
        this.retrievedGraceMillis = retrievedGraceMillis;
        this.slots = slots;
    }

    /** Runs {@code op} on {@code on}; the request id, or the first one's for a known {@code key} (may be null). */
    String submit(String key, Supplier<ObjectNode> op, Executor on) {
        String[] created = {null};
        String id;
        if (key == null) {
            take();
            id = Long.toString(requests.incrementAndGet());
            futures.put(id, new CompletableFuture<>());
            created[0] = id;
        } else {
            // the future is stored inside the mapping function, so it exists before another thread sees the id
            id = byKey.computeIfAbsent(key, k -> {
                take(); // a request re-sent under a known key takes no slot: its first one holds it
                String fresh = Long.toString(requests.incrementAndGet());
                futures.put(fresh, new CompletableFuture<>());
                keyOf.put(fresh, k);
                created[0] = fresh;
                return fresh;
            });
        }
        if (created[0] != null) {
            CompletableFuture<ObjectNode> f = futures.get(id);
            try {
                CompletableFuture.supplyAsync(op, on).whenComplete((r, e) -> done(id, f, e, r));
            } catch (java.util.concurrent.RejectedExecutionException e) { // its training client was unloaded
                done(id, f, new IllegalArgumentException("the training client was unloaded"), null);
            }
        }
        return id;
    }

    private void done(String id, CompletableFuture<ObjectNode> f, Throwable e, ObjectNode r) {
        slots.release();
        if (e != null) {
            f.completeExceptionally(e instanceof java.util.concurrent.CompletionException c ? c.getCause() : e);
        } else {
            f.complete(r);
        }
        dropLater(id, KEEP_MINUTES * 60_000);
    }

    private void take() {
        if (!slots.tryTake()) {
            throw new BadRequest(429, null, "server busy: " + slots.max() + " requests queued or running; retry later");
        }
    }

    private void dropLater(String id, long millis) {
        CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(() -> {
            futures.remove(id);
            String key = keyOf.remove(id);
            if (key != null) {
                byKey.remove(key, id);
            }
        });
    }

    /** Futures held now (answered or not). */
    int held() {
        return futures.size();
    }

    /** The request id submitted under {@code key}, or null. */
    String known(String key) {
        return byKey.get(key);
    }

    /** What {@code retrieve_future} answers for {@code id}: the result, {@code try_again}, or the failure. */
    ObjectNode poll(String id) throws InterruptedException {
        try {
            return pollAsync(id).get();
        } catch (ExecutionException e) {
            throw Failures.rethrow(e, IllegalStateException::new);
        }
    }

    /**
     * {@link #poll} without a thread waiting: completes with the result when it is there, or with {@code try_again}
     * once the hold is over, so a held poll costs the server no thread.
     */
    CompletableFuture<ObjectNode> pollAsync(String id) {
        CompletableFuture<ObjectNode> f = futures.get(id);
        if (f == null) {
            throw new BadRequest(404, "request_id", "unknown request_id '" + id + "'");
        }
        return f.handle((r, e) -> answer(id, r, e))
                .completeOnTimeout(
                        Http.JSON
                                .createObjectNode()
                                .put("type", "try_again")
                                .put("request_id", id)
                                .put("queue_state", "active"),
                        holdMillis,
                        TimeUnit.MILLISECONDS);
    }

    private ObjectNode answer(String id, ObjectNode result, Throwable e) {
        dropLater(id, retrievedGraceMillis);
        if (e == null) {
            return result;
        }
        Throwable cause =
                e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        boolean user = cause instanceof IllegalArgumentException;
        if (!user) {
            LOG.warn("request {} failed", id, cause);
        }
        String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
        return Http.JSON.createObjectNode().put("error", message).put("category", user ? "user" : "server");
    }
}

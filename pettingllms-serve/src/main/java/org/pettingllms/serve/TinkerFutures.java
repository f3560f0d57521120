package org.pettingllms.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tinker API's futures on the server's side: each operation runs on an executor and is answered by a request
 * id; a request re-sent under the same key ({@code model_id#seq_id}) gets its first id; a poll waits a while (20 s
 * on the server: under the SDK's 45 s read timeout) for the result, then answers {@code try_again}; a failed operation answers
 * {@code {"error", "category"}} ({@code user} for invalid input). Results stay {@link #KEEP_MINUTES} for a client
 * that polls again after a lost answer.
 */
final class TinkerFutures {
    private static final Logger LOG = LoggerFactory.getLogger(TinkerFutures.class);
    static final long KEEP_MINUTES = 10;

    private final Map<String, CompletableFuture<ObjectNode>> futures = new ConcurrentHashMap<>();
    private final Map<String, String> byKey = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final long holdMillis;

    /** @param holdMillis how long a poll waits for a result before it answers {@code try_again} */
    TinkerFutures(long holdMillis) {
        this.holdMillis = holdMillis;
    }

    /** Runs {@code op} on {@code on}; the request id, or the first one's for a known {@code key} (may be null). */
    String submit(String key, Supplier<ObjectNode> op, Executor on) {
        String fresh = Long.toString(requests.incrementAndGet());
        String id = key == null ? fresh : byKey.computeIfAbsent(key, k -> fresh);
        if (id.equals(fresh)) {
            CompletableFuture<ObjectNode> f = CompletableFuture.supplyAsync(op, on);
            futures.put(id, f);
            f.whenComplete((r, e) -> CompletableFuture.delayedExecutor(KEEP_MINUTES, TimeUnit.MINUTES)
                    .execute(() -> {
                        futures.remove(id);
                        if (key != null) {
                            byKey.remove(key);
                        }
                    }));
        }
        return id;
    }

    /** The request id submitted under {@code key}, or null. */
    String known(String key) {
        return byKey.get(key);
    }

    /** What {@code retrieve_future} answers for {@code id}: the result, {@code try_again}, or the failure. */
    ObjectNode poll(String id) throws InterruptedException {
        CompletableFuture<ObjectNode> f = futures.get(id);
        if (f == null) {
            throw new BadRequest(404, "request_id", "unknown request_id '" + id + "'");
        }
        try {
            return f.get(holdMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return InferenceServer.JSON
                    .createObjectNode()
                    .put("type", "try_again")
                    .put("request_id", id)
                    .put("queue_state", "active");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            boolean user = cause instanceof IllegalArgumentException;
            if (!user) {
                LOG.warn("request {} failed", id, cause);
            }
            String message = cause.getMessage() != null ? cause.getMessage() : cause.toString();
            return InferenceServer.JSON
                    .createObjectNode()
                    .put("error", message)
                    .put("category", user ? "user" : "server");
        }
    }
}

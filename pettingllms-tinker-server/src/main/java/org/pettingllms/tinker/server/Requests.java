package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;
import static org.pettingllms.tinker.server.Replies.ok;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.pettingllms.http.Fields;

/**
 * How an accepted request runs: as a future ({@link TinkerFutures}) on its training client's queue, in arrival
 * order and under its adapter's lock, or on the sampling pool; answered by the future's id, which
 * {@code retrieve_future} polls. A request re-sent under a known {@code (model_id, seq_id)} gets its first future.
 */
final class Requests {
    /** A training client's request: its body, the client's id and model, and its {@code seq_id}. */
    record ClientRequest(JsonNode body, String id, Sessions.Model model, int seq) {}

    /** A handler of a training client's request. */
    @FunctionalInterface
    interface ClientHandler {
        void handle(Context ctx, ClientRequest q) throws Exception;
    }

    private final TinkerFutures futures;
    private final Sessions sessions;
    /** Runs what belongs to no training client: sampling, and the answers of create_model and unload_model. */
    private final ExecutorService sampling;

    Requests(TinkerFutures futures, Sessions sessions, ExecutorService sampling) {
        this.futures = futures;
        this.sessions = sessions;
        this.sampling = sampling;
    }

    /**
     * Runs {@code op} on the model's queue (or the sampling pool when {@code modelId} is null) and answers its
     * future's id; a request already seen under the same {@code (model_id, seq_id)} gets its first future's id.
     */
    void submit(Context ctx, String modelId, int seq, Supplier<ObjectNode> op) throws Exception {
        String key = modelId == null || seq <= 0 ? null : modelId + "#" + seq;
        ExecutorService on =
                modelId == null ? sampling : sessions.model(modelId).queue();
        ok(ctx, json().put("request_id", futures.submit(key, op, on)));
    }

    /** Runs a training client's {@code op} on its queue, holding its adapter's lock. */
    void submit(Context ctx, ClientRequest q, Supplier<ObjectNode> op) throws Exception {
        ReentrantLock lock = sessions.lock(q.model().policy()); // not synchronized: a virtual thread waits unpinned
        submit(ctx, q.id(), q.seq(), () -> {
            lock.lock();
            try {
                return op.get();
            } finally {
                lock.unlock();
            }
        });
    }

    /**
     * A training client's route: the client looked up, and a request re-sent under a known {@code (model_id,
     * seq_id)} answered with its first future before any check, so a retry is never refused or run twice.
     */
    Route.Handler client(ClientHandler handler) {
        return (ctx, body) -> {
            String id = Fields.text(body, "model_id", null);
            Sessions.Model m = sessions.model(id);
            int seq = Fields.integer(body, "seq_id", 0, 0, Integer.MAX_VALUE);
            String known = seq > 0 ? futures.known(id + "#" + seq) : null;
            if (known != null) {
                ok(ctx, json().put("request_id", known));
            } else {
                handler.handle(ctx, new ClientRequest(body, id, m, seq));
            }
        };
    }

    /** {@code retrieve_future}: held without a server thread, the answer written when it arrives or the hold ends. */
    void retrieve(Context ctx, JsonNode body) {
        Fields.bool(body, "allow_metadata_only", false);
        CompletableFuture<ObjectNode> answer = futures.pollAsync(Fields.text(body, "request_id", null));
        ctx.future(() -> answer.thenAccept(
                r -> ctx.status(200).contentType("application/json").result(r.toString())));
    }
}

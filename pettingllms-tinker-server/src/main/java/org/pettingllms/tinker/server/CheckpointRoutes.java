package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.tinker.server.Requests.ClientRequest;

/**
 * The routes that keep a training client's states: {@code save_weights} (weights and optimizer state, within the
 * server's saved-bytes quota), {@code load_weights} (a state its own adapter saved) and
 * {@code save_weights_for_sampler} (published for {@code asample}).
 */
final class CheckpointRoutes {
    private final ServedModel served;
    private final CheckpointPaths paths;
    private final SamplerWeights samplers;
    private final Requests requests;
    /** Held while a state is checked against the quota and saved: saves from all sessions, one at a time. */
    private final ReentrantLock savesLock = new ReentrantLock();

    CheckpointRoutes(ServedModel served, CheckpointPaths paths, SamplerWeights samplers, Requests requests) {
        this.served = served;
        this.paths = paths;
        this.samplers = samplers;
        this.requests = requests;
    }

    void saveWeights(Context ctx, ClientRequest q) throws Exception {
        TinkerServer.Options options = served.options();
        String name = CheckpointPaths.name(q.body(), "path");
        Path dir = paths.weights(q.id(), name);
        if (Files.exists(dir)) {
            throw new BadRequest(409, "path", "checkpoint '" + name + "' already exists");
        }
        long saved = paths.savedBytes();
        if (saved >= options.maxSavedBytes()) {
            throw new BadRequest(
                    507,
                    "path",
                    "the server's saved states hold " + saved + " bytes, its quota is " + options.maxSavedBytes()
                            + "; remove old states under " + options.dir() + " or start it with a larger quota");
        }
        requests.submit(ctx, q, () -> {
            // the check above answers at once; this one, with every other save waiting, keeps concurrent saves from
            // all passing it: the quota is passed by at most the one state that found it unreached
            savesLock.lock();
            try {
                if (Files.exists(dir)) { // a save of the same name that waited for this one's turn
                    throw new IllegalArgumentException("checkpoint '" + name + "' already exists");
                }
                long now = paths.savedBytes();
                if (now >= options.maxSavedBytes()) {
                    throw new IllegalArgumentException("the server's saved states reached its quota of "
                            + options.maxSavedBytes() + " bytes (" + now + ") while this save waited for another");
                }
                served.engine().learner().save(q.model().policy(), dir);
                // which adapter saved it: a checkpoint loads into a client of that adapter only
                Files.writeString(paths.owner(q.id()), q.model().policy().adapter());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                savesLock.unlock();
            }
            return json().put("path", CheckpointPaths.weightsPath(q.id(), name)).put("type", "save_weights");
        });
    }

    void loadWeights(Context ctx, ClientRequest q) throws Exception {
        String path = Fields.text(q.body(), "path", null);
        Path dir = paths.checkpoint(path, q.model().policy().adapter());
        if (!Fields.bool(q.body(), "optimizer", true)) {
            throw BadRequest.field("optimizer", "this server loads weights with their optimizer state only");
        }
        requests.submit(ctx, q, () -> {
            try {
                served.engine().learner().load(q.model().policy(), dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return json().put("path", path).put("model_id", q.id()).put("type", "load_weights");
        });
    }

    void saveForSampler(Context ctx, ClientRequest q) throws Exception {
        if (!q.body().hasNonNull("path")) {
            throw BadRequest.field("path", "required: this server keeps named sampler weights only");
        }
        String name = CheckpointPaths.name(q.body(), "path");
        requests.submit(ctx, q, () -> {
            PolicyRef policy = q.model().policy();
            long version = served.engine().learner().publish(policy);
            String path = CheckpointPaths.samplerPath(q.id(), name);
            samplers.publish(path, policy, version);
            return json().put("path", path).put("type", "save_weights_for_sampler");
        });
    }
}

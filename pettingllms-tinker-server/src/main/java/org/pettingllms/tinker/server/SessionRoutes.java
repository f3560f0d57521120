package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;
import static org.pettingllms.tinker.server.Replies.ok;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.Set;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;

/**
 * The routes that open and end sessions and training clients ({@code create_session}, {@code session_heartbeat},
 * {@code create_model}, {@code get_info}, {@code unload_model}): what a request asks is checked here, what it
 * changes is kept by {@link Sessions}.
 */
final class SessionRoutes {
    /**
     * {@code lora_config}'s fields; those that would change the numbers here are refused by value where they are
     * read ({@code train_unembed}, ...).
     */
    private static final Set<String> LORA_FIELDS = Set.of("rank", "seed", "train_unembed", "train_mlp", "train_attn");

    private final ServedModel served;
    private final Sessions sessions;
    private final Requests requests;

    SessionRoutes(ServedModel served, Sessions sessions, Requests requests) {
        this.served = served;
        this.sessions = sessions;
        this.requests = requests;
    }

    void createSession(Context ctx, JsonNode body) throws Exception {
        ok(ctx, json().put("type", "create_session").put("session_id", sessions.create()));
    }

    void heartbeat(Context ctx, JsonNode body) throws Exception {
        sessions.touch(Fields.text(body, "session_id", null));
        ok(ctx, json().put("type", "session_heartbeat"));
    }

    void createModel(Context ctx, JsonNode body) throws Exception {
        TinkerServer.Options options = served.options();
        String session = Fields.text(body, "session_id", "");
        sessions.touch(session);
        String base = Fields.text(body, "base_model", "");
        if (!served.serves(base)) {
            throw BadRequest.field(
                    "base_model", "this server trains '" + options.servedName() + "', not '" + base + "'");
        }
        JsonNode lora = Fields.object(body, "lora_config");
        Fields.onlyKnown(lora, LORA_FIELDS, "create_model", "lora_config.");
        int rank = Fields.integer(lora, "rank", "lora_config.rank", -1, -1, Integer.MAX_VALUE);
        if (rank != options.loraRank()) {
            throw BadRequest.field(
                    "lora_config.rank",
                    "this server's engine trains LoRA rank " + options.loraRank() + ", got " + rank);
        }
        Long seed = Fields.longInteger(lora, "seed", "lora_config.seed", null);
        if (seed != null && seed != options.seed()) {
            throw BadRequest.field(
                    "lora_config.seed",
                    "this server initialises adapters with seed " + options.seed() + " (serve --seed), got " + seed
                            + "; start it with the run's run.seed");
        }
        if (Fields.bool(lora, "train_unembed", "lora_config.train_unembed", false)) {
            throw BadRequest.field("lora_config.train_unembed", "this server's adapters do not train the unembedding");
        }
        if (!Fields.bool(lora, "train_mlp", "lora_config.train_mlp", true)
                || !Fields.bool(lora, "train_attn", "lora_config.train_attn", true)) {
            throw BadRequest.field(
                    "lora_config", "this server's adapters train the layers its engine names (engine.loraTargets)");
        }
        JsonNode meta = Fields.object(body, "user_metadata");
        String id = "model_" + Sessions.shortId();
        // a client may name its adapter (this project's learner does: the same name initialises the same LoRA)
        String adapter = Fields.text(meta, "pettingllms_adapter", "user_metadata.pettingllms_adapter", id);
        if (!CheckpointPaths.isName(adapter)) {
            throw BadRequest.field("user_metadata.pettingllms_adapter", "letters, digits, '_' and '-' only");
        }
        sessions.open(id, new PolicyRef(served.model(), adapter), session);
        requests.submit(ctx, null, 0, () -> json().put("model_id", id).put("type", "create_model"));
    }

    void info(Context ctx, JsonNode body) throws Exception {
        TinkerServer.Options options = served.options();
        String id = Fields.text(body, "model_id", null);
        sessions.model(id);
        ObjectNode r = json().put("type", "get_info").put("model_id", id);
        r.putObject("model_data").put("model_name", options.servedName()).put("tokenizer_id", options.servedName());
        r.put("is_lora", true).put("lora_rank", options.loraRank()).put("model_name", options.servedName());
        ok(ctx, r);
    }

    /** Tinker's {@code unload_model}: the client's queue drains, then its adapter and training state are freed. */
    void unloadModel(Context ctx, JsonNode body) throws Exception {
        String id = Fields.text(body, "model_id", null);
        Sessions.Model m = sessions.model(id);
        String session = Fields.text(body, "session_id", m.session());
        if (!session.equals(m.session())) {
            throw new BadRequest(403, "session_id", "model '" + id + "' belongs to another session");
        }
        sessions.unload(id, "unloaded");
        requests.submit(ctx, null, 0, () -> json().put("type", "unload_model").put("model_id", id));
    }
}

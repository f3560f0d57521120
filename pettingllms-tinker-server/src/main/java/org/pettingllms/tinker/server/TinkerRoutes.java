package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;
import static org.pettingllms.tinker.server.Replies.ok;
import static org.pettingllms.tinker.server.Route.Schema.NO_BODY;
import static org.pettingllms.tinker.server.Route.get;
import static org.pettingllms.tinker.server.Route.post;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.pettingllms.tinker.server.Route.Schema;

/**
 * The Tinker API's route table: each route with the fields its body may hold, in one list. A new route is its
 * handler plus one line here; its {@link Schema} is part of that line (see {@link Route}).
 *
 * <p>The fields are the SDK's request types (up to 0.24) and this project's learner's. Anything else is refused by
 * name, as the OpenAI routes do; fields the SDK sends that would change the numbers here are refused by value
 * where they are read ({@code prompt_logprobs}, {@code lora_config.train_unembed}, ...).
 */
final class TinkerRoutes {
    /** The health check's path: open without the server's key ({@link org.pettingllms.http.Access}). */
    static final String HEALTH = "/api/v1/healthz";

    private TinkerRoutes() {}

    static List<Route> of(
            ServedModel served, Sessions sessions, Requests requests, SamplerWeights samplers, CheckpointPaths paths) {
        SessionRoutes s = new SessionRoutes(served, sessions, requests);
        TrainingRoutes t = new TrainingRoutes(served, requests);
        CheckpointRoutes c = new CheckpointRoutes(served, paths, samplers, requests);
        SamplingRoute sampling = new SamplingRoute(served, samplers, requests);
        String name = served.options().servedName();
        return List.of(
                get(HEALTH, NO_BODY, (ctx, b) -> ok(ctx, json().put("status", "ok"))),
                post("/api/v1/client/config", NO_BODY, (ctx, b) -> ok(ctx, json().put("pjwt_auth_enabled", false))),
                get("/api/v1/get_server_capabilities", NO_BODY, (ctx, b) -> {
                    ObjectNode r = json();
                    r.putArray("supported_models").addObject().put("model_name", name);
                    ok(ctx, r);
                }),
                post(
                        "/api/v1/create_session",
                        Schema.of("tags", "user_metadata", "sdk_version", "type", "project_id"),
                        s::createSession),
                post("/api/v1/session_heartbeat", Schema.of("session_id", "type"), s::heartbeat),
                post("/api/v1/unload_model", Schema.of("model_id", "session_id", "type"), s::unloadModel),
                post(
                        "/api/v1/create_model",
                        Schema.of("session_id", "model_seq_id", "base_model", "user_metadata", "lora_config", "type"),
                        s::createModel),
                post("/api/v1/get_info", Schema.of("model_id", "type"), s::info),
                post(
                        "/api/v1/forward_backward",
                        Schema.of("model_id", "seq_id", "forward_backward_input", "type"),
                        requests.client(t::forwardBackward)),
                post(
                        "/api/v1/forward",
                        Schema.of("model_id", "seq_id", "forward_input", "type"),
                        requests.client(t::forward)),
                post(
                        "/api/v1/optim_step",
                        Schema.of("model_id", "seq_id", "adam_params", "type"),
                        requests.client(t::optimStep)),
                post(
                        "/api/v1/save_weights",
                        Schema.of("model_id", "seq_id", "path", "ttl_seconds", "type"),
                        requests.client(c::saveWeights)),
                post(
                        "/api/v1/load_weights",
                        Schema.of("model_id", "seq_id", "path", "optimizer", "type"),
                        requests.client(c::loadWeights)),
                post(
                        "/api/v1/save_weights_for_sampler",
                        Schema.of("model_id", "seq_id", "path", "ttl_seconds", "sampling_session_seq_id", "type"),
                        requests.client(c::saveForSampler)),
                post(
                        "/api/v1/asample",
                        Schema.of(
                                "num_samples",
                                "prompt",
                                "sampling_params",
                                "base_model",
                                "model_path",
                                "sampling_session_id",
                                "seq_id",
                                "prompt_logprobs",
                                "topk_prompt_logprobs",
                                "record_stability_info",
                                "type"),
                        sampling::sample),
                post(
                        "/api/v1/retrieve_future",
                        Schema.of("request_id", "allow_metadata_only", "type"),
                        requests::retrieve));
    }
}

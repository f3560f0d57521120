package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.http.Access;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.HttpCalls;
import org.pettingllms.testkit.HttpFuzz;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Every route of {@code serve --tinker}, sent what a careless or hostile client sends (the mutations of
 * {@link HttpFuzz}: wrong types, huge, negative and out-of-vocabulary values, missing and unknown fields, non-JSON and
 * truncated bodies, abandoned polls). Each answer is below 500 with a readable {@code detail} when refused; every
 * request the server accepted ends without a server-side failure (an accepted request that fails in the engine
 * is a check the server missed); and afterwards a seeded sample of the base model is what it was before.
 */
class TinkerFuzzTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static EmbeddedEngine engine;
    static TinkerServer server;
    static final AtomicInteger SEQ = new AtomicInteger(1_000);

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        server = new TinkerServer(
                        engine,
                        model,
                        new TinkerServer.Options(
                                "127.0.0.1", 0, "tiny", dir, 8, 1, Access.open(), TinkerServer.SESSION_TIMEOUT, 1_000))
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static HttpResponse<String> post(String route, String body) throws Exception {
        return HttpCalls.post(server.uri().resolve("/api/v1/" + route), body);
    }

    static JsonNode ok(String route, String body) throws Exception {
        HttpResponse<String> r = post(route, body);
        assertThat(r.statusCode()).as(route + " " + r.body()).isEqualTo(200);
        return Http.JSON.readTree(r.body());
    }

    /** The result of a submitted request, polled until it is there. */
    static JsonNode result(String requestId) throws Exception {
        JsonNode r;
        do {
            r = ok("retrieve_future", "{\"request_id\":\"" + requestId + "\"}");
        } while (r.path("type").asText().equals("try_again"));
        return r;
    }

    static final String SAMPLE = "{\"num_samples\":2,\"prompt\":{\"chunks\":[{\"type\":\"encoded_text\","
            + "\"tokens\":[1,17,42]}]},\"sampling_params\":{\"max_tokens\":4,\"seed\":7,\"temperature\":1.0,"
            + "\"top_k\":-1,\"top_p\":1.0,\"stop\":[\"x\"]},\"base_model\":\"tiny\",\"topk_prompt_logprobs\":0,"
            + "\"type\":\"sample\"}";

    static String datum(boolean train) {
        String inputs = train
                ? "\"logprobs\":{\"data\":[0,-1.0,-1.5],\"dtype\":\"float32\",\"shape\":[3]},"
                        + "\"advantages\":{\"data\":[0,0.5,0.5],\"dtype\":\"float32\",\"shape\":[3]}"
                : "\"weights\":{\"data\":[0,1,1],\"dtype\":\"float32\",\"shape\":[3]}";
        return "{\"model_input\":{\"chunks\":[{\"type\":\"encoded_text\",\"tokens\":[1,17,42]}]},"
                + "\"loss_fn_inputs\":{\"target_tokens\":{\"data\":[17,42,5],\"dtype\":\"int64\",\"shape\":[3]},"
                + inputs + "}}";
    }

    /** Every answer that breaks the rules, so that one run lists them all. */
    final List<String> broken = new ArrayList<>();
    /** Requests the server accepted: each must end without a server-side failure. */
    final List<String[]> accepted = new ArrayList<>();

    void send(String route, String what, String body) throws Exception {
        HttpResponse<String> r = post(route, body);
        String line = route + " " + what + " " + (body.length() > 160 ? body.substring(0, 160) + "..." : body) + " -> "
                + r.statusCode() + " " + r.body();
        if (r.statusCode() >= 500) {
            broken.add(line);
            return;
        }
        JsonNode answer;
        try {
            answer = Http.JSON.readTree(r.body());
        } catch (Exception e) {
            broken.add(line + " (not JSON)");
            return;
        }
        if (r.statusCode() >= 400 && answer.path("detail").asText().isBlank()) {
            broken.add(line + " (no detail)");
        } else if (r.statusCode() == 200 && answer.hasNonNull("request_id") && !route.equals("retrieve_future")) {
            accepted.add(new String[] {answer.get("request_id").asText(), line});
        }
    }

    /**
     * Every mutation of {@code template}; a request that names a {@code seq_id} gets a fresh one unless the mutation
     * is of {@code seq_id} itself, so that no mutation is answered with an earlier request's future unchecked.
     */
    int fuzz(String route, String template) throws Exception {
        int sent = 0;
        for (HttpFuzz.Mutation m : HttpFuzz.mutations(template)) {
            String body = m.body();
            JsonNode root = Http.JSON.readTree(body);
            if (!m.path().equals("seq_id") && root.has("seq_id")) {
                ((ObjectNode) root).put("seq_id", SEQ.incrementAndGet());
                body = root.toString();
            }
            send(route, m.path(), body);
            sent++;
        }
        for (String raw : HttpFuzz.RAW) {
            send(route, "raw", raw);
            sent++;
        }
        return sent;
    }

    @Tag("heavy")
    @Test
    void noRequestBreaksTheServerOrChangesWhatItAnswersOthers() throws Exception {
        JsonNode before = result(ok("asample", SAMPLE).path("request_id").asText());
        assertThat(before.path("sequences")).hasSize(2);

        String session = ok("create_session", "{\"tags\":[],\"user_metadata\":{},\"sdk_version\":\"0.24.1\"}")
                .path("session_id")
                .asText();
        String createModel = "{\"session_id\":\"" + session + "\",\"model_seq_id\":1,\"base_model\":\"tiny\","
                + "\"lora_config\":{\"rank\":8,\"seed\":1,\"train_unembed\":false,\"train_mlp\":true,"
                + "\"train_attn\":true},\"user_metadata\":{\"pettingllms_adapter\":\"fuzz\"},\"type\":\"create_model\"}";
        String model = result(ok("create_model", createModel).path("request_id").asText())
                .path("model_id")
                .asText();
        assertThat(model).startsWith("model_");
        String id = "\"model_id\":\"" + model + "\"";
        // a saved state to load, and published sampler weights
        result(ok("save_weights", "{" + id + ",\"path\":\"base\"}")
                .path("request_id")
                .asText());
        String sampler = result(ok("save_weights_for_sampler", "{" + id + ",\"path\":\"s0\"}")
                        .path("request_id")
                        .asText())
                .path("path")
                .asText();
        String pending = ok("asample", SAMPLE).path("request_id").asText();

        String[][] routes = {
            {
                "create_session",
                "{\"tags\":[\"a\"],\"user_metadata\":{},\"sdk_version\":\"0.24.1\",\"type\":\"create_session\"}"
            },
            {"session_heartbeat", "{\"session_id\":\"" + session + "\",\"type\":\"session_heartbeat\"}"},
            {"create_model", createModel},
            {"get_info", "{" + id + ",\"type\":\"get_info\"}"},
            {
                "forward_backward",
                "{" + id + ",\"seq_id\":1,\"forward_backward_input\":{\"loss_fn\":\"ppo\",\"loss_fn_config\":"
                        + "{\"clip_low_threshold\":0.8,\"clip_high_threshold\":1.2},\"data\":[" + datum(true)
                        + "]},\"type\":\"forward_backward\"}"
            },
            {
                "forward",
                "{" + id + ",\"seq_id\":1,\"forward_input\":{\"loss_fn\":\"cross_entropy\",\"data\":[" + datum(false)
                        + "]},\"type\":\"forward\"}"
            },
            {
                "optim_step",
                "{" + id + ",\"seq_id\":1,\"adam_params\":{\"learning_rate\":1e-4,\"beta1\":0.9,\"beta2\":0.95,"
                        + "\"eps\":1e-12,\"weight_decay\":0.0,\"grad_clip_norm\":1.0},\"type\":\"optim_step\"}"
            },
            {"save_weights", "{" + id + ",\"seq_id\":1,\"path\":\"c1\",\"ttl_seconds\":60,\"type\":\"save_weights\"}"},
            {
                "load_weights",
                "{" + id + ",\"seq_id\":1,\"path\":\"tinker://" + model + "/weights/base\",\"optimizer\":true,"
                        + "\"type\":\"load_weights\"}"
            },
            {
                "save_weights_for_sampler",
                "{" + id + ",\"seq_id\":1,\"path\":\"s1\",\"type\":\"save_weights_for_sampler\"}"
            },
            {"asample", SAMPLE},
            {"asample", SAMPLE.replace("\"base_model\":\"tiny\"", "\"model_path\":\"" + sampler + "\"")},
            {"retrieve_future", "{\"request_id\":\"" + pending + "\",\"allow_metadata_only\":false}"},
            {"unload_model", "{" + id + ",\"type\":\"unload_model\"}"}
        };
        int sent = 0;
        for (String[] route : routes) {
            sent += fuzz(route[0], route[1]);
        }
        assertThat(sent).isGreaterThan(2_000);
        // a poll the client abandons while it is held, and bodies cut short
        String held = ok("asample", SAMPLE.replace("\"max_tokens\":4", "\"max_tokens\":200"))
                .path("request_id")
                .asText();
        for (int i = 0; i < 3; i++) {
            HttpFuzz.raw(
                    server.uri(), HttpFuzz.post("/api/v1/retrieve_future", "{\"request_id\":\"" + held + "\"}"), true);
            HttpFuzz.raw(server.uri(), HttpFuzz.post("/api/v1/asample", "{\"num_samples\":1,\"prompt\":", 300), false);
        }
        for (String[] a : accepted) {
            JsonNode r = result(a[0]);
            if (r.path("category").asText().equals("server")) {
                broken.add(a[1] + " => accepted, then failed in the server: " + r);
            }
        }
        assertThat(broken)
                .as("answers of 500 or above, 4xx without a readable detail, or accepted requests that failed")
                .isEmpty();
        JsonNode after = result(ok("asample", SAMPLE).path("request_id").asText());
        assertThat(after.path("sequences")).isEqualTo(before.path("sequences"));
    }
}

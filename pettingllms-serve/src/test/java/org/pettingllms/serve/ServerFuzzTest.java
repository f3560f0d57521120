package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.HttpCalls;
import org.pettingllms.testkit.HttpFuzz;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Every route of the OpenAI-compatible server, sent what a careless or hostile client sends: malformed JSON, each
 * field replaced by wrong types and huge, negative or out-of-vocabulary values, fields missing, unknown fields,
 * truncated bodies and streams the client abandons. Each answer is below 500, a 4xx has a readable JSON body naming
 * what was wrong, and afterwards the server answers a correct request exactly as before.
 */
class ServerFuzzTest {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static EmbeddedEngine engine;
    static InferenceServer server;

    static final String COMPLETION = "{\"model\":\"tiny\",\"prompt\":[1,17,42],\"max_tokens\":4,\"seed\":7,"
            + "\"temperature\":1.0,\"n\":2,\"logprobs\":0,\"return_token_ids\":true,\"stop\":[\"x\"]}";
    static final String[][] ROUTES = {
        {"/v1/completions", COMPLETION},
        {
            "/v1/completions",
            "{\"model\":\"tiny\",\"prompt\":\"ab\",\"max_tokens\":4,\"seed\":3,\"stream\":true,"
                    + "\"stream_options\":{\"include_usage\":true}}"
        },
        {
            "/v1/chat/completions",
            "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]," + "\"max_tokens\":4}"
        },
        {
            "/v1/responses",
            "{\"model\":\"tiny\",\"instructions\":\"s\",\"max_output_tokens\":4,\"seed\":3,"
                    + "\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{}}],"
                    + "\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"hi\"}]},"
                    + "{\"type\":\"function_call\",\"call_id\":\"c\",\"name\":\"f\",\"arguments\":\"{}\"},"
                    + "{\"type\":\"function_call_output\",\"call_id\":\"c\",\"output\":\"x\"}]}"
        },
        {"/v1/responses", "{\"model\":\"tiny\",\"input\":\"hi\",\"max_output_tokens\":4,\"stream\":true}"},
        {
            "/generate",
            "{\"input_ids\":[1,17,42],\"sampling_params\":{\"max_new_tokens\":4,\"temperature\":1.0,"
                    + "\"sampling_seed\":5,\"stop\":[\"x\"]},\"return_logprob\":true}"
        },
        {"/v1/load_lora_adapter", "{\"lora_name\":\"a\",\"lora_path\":\"/nonexistent\"}"},
        {"/v1/unload_lora_adapter", "{\"lora_name\":\"a\"}"},
        {"/load_lora_adapter", "{\"lora_name\":\"a\",\"lora_path\":\"/nonexistent\"}"},
        {"/unload_lora_adapter", "{\"lora_name\":\"a\"}"},
        {"/update_weights_from_disk", "{\"model_path\":\"/nonexistent\",\"weight_version\":\"v1\"}"}
    };

    @BeforeAll
    static void start() throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        server = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 64)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return HttpCalls.post(server.uri().resolve(path), body);
    }

    /** Every answer that breaks the rules, so that one run lists them all. */
    static final List<String> BROKEN = new ArrayList<>();

    static void check(String route, String body, HttpResponse<String> r) {
        String what = route + " " + (body.length() > 120 ? body.substring(0, 120) + "..." : body) + " -> "
                + r.statusCode() + " " + r.body();
        if (r.statusCode() >= 500) {
            BROKEN.add(what);
        } else if (r.statusCode() >= 400) {
            try {
                if (Http.JSON
                        .readTree(r.body())
                        .path("error")
                        .path("message")
                        .asText()
                        .isBlank()) {
                    BROKEN.add(what + " (no error message)");
                }
            } catch (Exception e) {
                BROKEN.add(what + " (not JSON)");
            }
        }
    }

    @Tag("heavy")
    @Test
    void noRequestBreaksTheServerOrChangesWhatItAnswersOthers() throws Exception {
        HttpResponse<String> before = post("/v1/completions", COMPLETION);
        assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
        int sent = 0;
        for (String[] route : ROUTES) {
            for (HttpFuzz.Mutation m : HttpFuzz.mutations(route[1])) {
                check(route[0], m.body(), post(route[0], m.body()));
                sent++;
            }
            for (String body : HttpFuzz.RAW) {
                check(route[0], body, post(route[0], body));
                sent++;
            }
        }
        for (String path : new String[] {"/v1/models/nope", "/v1/models/%00", "/nowhere", "/v1/completions/x"}) {
            var r = HTTP.send(
                    HttpRequest.newBuilder(server.uri().resolve(path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            check(path, "", r);
        }
        assertThat(sent).isGreaterThan(800);
        assertThat(BROKEN)
                .as("answers of 500 or above, or 4xx without a readable message")
                .isEmpty();
        // bodies cut short, and streams the client abandons after their first bytes
        for (int i = 0; i < 3; i++) {
            HttpFuzz.raw(server.uri(), HttpFuzz.post("/v1/completions", "{\"prompt\":[1,2", 200), false);
            HttpFuzz.raw(
                    server.uri(),
                    HttpFuzz.post(
                            "/v1/completions",
                            "{\"model\":\"tiny\",\"prompt\":[1,17],\"max_tokens\":200,\"stream\":true}"),
                    true);
        }
        HttpResponse<String> after = post("/v1/completions", COMPLETION);
        assertThat(after.statusCode()).isEqualTo(200);
        JsonNode a = Http.JSON.readTree(before.body());
        JsonNode b = Http.JSON.readTree(after.body());
        assertThat(b.path("choices")).isEqualTo(a.path("choices"));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (server.inFlight() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(server.inFlight()).as("requests still holding a slot").isZero();
    }
}

package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.HttpCalls;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/** The HTTP endpoints over loopback, against the embedded engine answering the same requests in-process. */
class ServerApiTest {
    static EmbeddedEngine engine;
    static InferenceServer server;
    static String model;
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        model = SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        server = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 2)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static HttpResponse<String> post(String path, String body) throws Exception {
        return HttpCalls.post(server.uri().resolve(path), body);
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return Http.JSON.readTree(r.body());
    }

    @Test
    void healthAndModels() throws Exception {
        var h = HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve("/health")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(h.statusCode()).isEqualTo(200);
        var m = json(HTTP.send(
                HttpRequest.newBuilder(server.uri().resolve("/v1/models")).build(),
                HttpResponse.BodyHandlers.ofString()));
        assertThat(m.path("data").get(0).path("id").asText()).isEqualTo("tiny");
    }

    @Test
    void completionsWithTokenIdsAreWhatTheEngineSamplesInProcess() throws Exception {
        int[] prompt = engine.codec(model).encode("plan-path-v1 plan\n#.A\n..G\ntool: D\n>");
        var r = post(
                "/v1/completions",
                "{\"model\":\"tiny\",\"prompt\":" + Arrays.toString(prompt)
                        + ",\"n\":3,\"max_tokens\":12,\"temperature\":1.0,\"seed\":41,\"logprobs\":0,"
                        + "\"return_token_ids\":true,\"stop\":[\"\\n\"]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode choices = json(r).path("choices");
        List<Completion> local = engine.sampler()
                .sampleTokens(PolicyRef.of(model), prompt, 3, new SamplingParams(1.0, 0, 1.0, 12, List.of("\n"), 41));
        for (int i = 0; i < 3; i++) {
            JsonNode c = choices.get(i);
            assertThat(c.path("text").asText()).isEqualTo(local.get(i).text());
            assertThat(c.path("token_ids").size())
                    .isEqualTo(local.get(i).tokens().size());
            for (int t = 0; t < local.get(i).tokens().size(); t++) {
                assertThat(c.path("token_ids").get(t).asInt())
                        .isEqualTo(local.get(i).tokens().get(t));
                assertThat(c.path("logprobs").path("token_logprobs").get(t).asDouble())
                        .isCloseTo(local.get(i).logprobs().get(t), Assertions.within(1e-5));
            }
            assertThat(c.path("prompt_token_ids").size()).isEqualTo(prompt.length);
        }
        var g = json(post(
                "/generate",
                "{\"input_ids\":" + Arrays.toString(prompt)
                        + ",\"sampling_params\":{\"max_new_tokens\":12,\"temperature\":1.0,\"sampling_seed\":41,\"n\":3,"
                        + "\"stop\":[\"\\n\"]},\"return_logprob\":true}"));
        assertThat(g.isArray()).isTrue();
        assertThat(g.get(1).path("text").asText()).isEqualTo(local.get(1).text());
        assertThat(g.get(1).path("meta_info").path("output_token_logprobs").size())
                .isEqualTo(local.get(1).tokens().size());
    }

    @Tag("heavy")
    @Test
    void badRequestsNameTheField() throws Exception {
        var r = post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":[1,2],\"max_tokens\":-3}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("param").asText()).isEqualTo("max_tokens");
        assertThat(json(r).path("error").path("message").asText()).contains("max_tokens");
        r = post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":[1,99999]}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("param").asText()).isEqualTo("prompt");
        r = post("/v1/completions", "{\"model\":\"nope\",\"prompt\":\"x\"}");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).path("error").path("message").asText()).contains("nope");
        r = post("/v1/completions", "not json");
        assertThat(r.statusCode()).isEqualTo(400);
        r = post("/generate", "{\"input_ids\":[1,2],\"lora_path\":\"missing\"}");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).path("error").path("param").asText()).isEqualTo("lora_path");
        r = post("/v1/load_lora_adapter", "{\"lora_name\":\"x\",\"lora_path\":\"/nonexistent\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("param").asText()).isEqualTo("lora_path");
        // beyond the model's context (1,024 positions): refused before it joins a batch, on every generation route
        for (String[] route : new String[][] {
            {"/v1/completions", "{\"model\":\"tiny\",\"prompt\":[1,2],\"max_tokens\":1023}", "max_tokens"},
            {"/generate", "{\"input_ids\":[1,2],\"sampling_params\":{\"max_new_tokens\":1023}}", "max_tokens"}
        }) {
            r = post(route[0], route[1]);
            assertThat(r.statusCode()).as(route[0]).isEqualTo(400);
            assertThat(json(r).path("error").path("message").asText())
                    .as(route[0])
                    .contains("maximum context length is 1024 tokens")
                    .contains("1025 (2 in the prompt, 1023 for the completion)");
        }
        r = post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":[1,2],\"max_tokens\":1022}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    @Test
    void anOverloadedServerAnswers429AtOnce() throws Exception {
        // two slots: two long requests hold them, a third is refused at once
        String slow = "{\"model\":\"tiny\",\"prompt\":[1,5,9],\"max_tokens\":600,\"temperature\":1.0,\"seed\":1}";
        List<CompletableFuture<HttpResponse<String>>> held = List.of(
                HTTP.sendAsync(request("/v1/completions", slow), HttpResponse.BodyHandlers.ofString()),
                HTTP.sendAsync(request("/v1/completions", slow), HttpResponse.BodyHandlers.ofString()));
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (server.inFlight() < 2 && System.nanoTime() < deadline) { // both admitted, however busy the machine
            Thread.sleep(5);
        }
        assertThat(server.inFlight()).isEqualTo(2);
        long t0 = System.nanoTime();
        var r = post("/v1/completions", "{\"model\":\"tiny\",\"prompt\":[1],\"max_tokens\":1}");
        double seconds = (System.nanoTime() - t0) / 1e9;
        for (var f : held) {
            assertThat(f.get().statusCode()).isEqualTo(200);
        }
        assertThat(r.statusCode()).as("while two requests run: " + r.body()).isEqualTo(429);
        assertThat(seconds).as("refused without waiting").isLessThan(1.0);
    }

    static HttpRequest request(String path, String body) {
        return HttpRequest.newBuilder(server.uri().resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    @Test
    void chatCompletionsRefuseAModelWithoutAChatTemplateClearly() throws Exception {
        var r = post(
                "/v1/chat/completions", "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("message").asText())
                .contains("no chat template")
                .contains("/v1/completions");
    }
}

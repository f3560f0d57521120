package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.pettingllms.testkit.HttpCalls.json;
import static org.pettingllms.testkit.HttpCalls.send;

import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.http.Access;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The OpenAI server behind a key: 401 without it (the health check open), a body over the limit 413 before it is read,
 * path loading refused unless allowed; in OpenAI's error format, and the server still answers after.
 */
class AccessTest {
    static EmbeddedEngine engine;
    static InferenceServer openai;
    static final Access ACCESS = new Access("s3cret", false, 4096);

    @BeforeAll
    static void start() throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        openai = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 4, ACCESS))
                .start();
    }

    @AfterAll
    static void stop() {
        openai.close();
        engine.close();
    }

    @Test
    void theOpenAiServerWantsItsKeyRefusesLargeBodiesAndPathLoading() throws Exception {
        URI completions = openai.uri().resolve("/v1/completions");
        String ok = "{\"model\":\"tiny\",\"prompt\":[1,2],\"max_tokens\":3,\"seed\":4}";
        assertThat(send(openai.uri().resolve("/health"), "GET", null).statusCode())
                .isEqualTo(200);
        for (String[] wrong : new String[][] {{}, {"Authorization", "Bearer nope"}, {"Authorization", "s3cret"}}) {
            var r = send(completions, "POST", ok, wrong);
            assertThat(r.statusCode()).as(String.join(" ", wrong)).isEqualTo(401);
            assertThat(json(r).path("error").path("type").asText()).isEqualTo("AuthenticationError");
            assertThat(json(r).path("error").path("message").asText()).contains("--api-key");
        }
        var first = send(completions, "POST", ok, "Authorization", "Bearer s3cret");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(send(openai.uri().resolve("/v1/models"), "GET", null, "X-API-Key", "s3cret")
                        .statusCode())
                .isEqualTo(200);
        var big = send(
                completions, "POST", "{\"prompt\":\"" + "x".repeat(5000) + "\"}", "Authorization", "Bearer s3cret");
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(json(big).path("error").path("code").asInt()).isEqualTo(413);
        for (String route : new String[] {"/v1/load_lora_adapter", "/load_lora_adapter", "/update_weights_from_disk"}) {
            var r = send(
                    openai.uri().resolve(route),
                    "POST",
                    "{\"lora_name\":\"a\",\"lora_path\":\"/etc\",\"model_path\":\"/etc\"}",
                    "Authorization",
                    "Bearer s3cret");
            assertThat(r.statusCode()).as(route).isEqualTo(403);
            assertThat(json(r).path("error").path("message").asText()).contains("--allow-path-loading");
        }
        var again = send(completions, "POST", ok, "Authorization", "Bearer s3cret");
        assertThat(json(again).path("choices")).isEqualTo(json(first).path("choices"));
    }
}

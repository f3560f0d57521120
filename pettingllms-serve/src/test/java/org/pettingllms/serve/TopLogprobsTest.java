package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.Http;
import org.pettingllms.testkit.HttpCalls;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Top logprobs as vLLM returns them: completions {@code logprobs: N} (each position's N most likely tokens and the
 * chosen one) and chat {@code logprobs: true, top_logprobs: N}, each value checked against the engine's own
 * log-probability of that token at that position (a teacher-forced pass over the prompt and the token).
 */
class TopLogprobsTest {
    static EmbeddedEngine engine;
    static InferenceServer server;
    static String model;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        // the shipped tiny planner with OpenAiClientTest's chat template beside its character tokenizer
        Path shipped = SharedFiles.projectRoot().resolve("models/plan-path-tiny");
        for (String f : List.of("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json")) {
            Files.copy(shipped.resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("chat_template.jinja"), OpenAiClientTest.TEMPLATE);
        model = dir.toString();
        engine = EmbeddedEngine.forServing(model, "cpu");
        server = new InferenceServer(engine, model, new InferenceServer.Options("127.0.0.1", 0, "tiny", 2)).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        engine.close();
    }

    static JsonNode post(String path, String body) throws Exception {
        var r = HttpCalls.post(server.uri().resolve(path), body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Http.JSON.readTree(r.body());
    }

    /** The engine's log-probability of {@code token} right after {@code prefix}. */
    static double logprob(int[] prefix, int token) {
        return engine.learner()
                .logprobs(
                        PolicyRef.of(model),
                        List.of(new TrainExample(IntSeq.of(prefix), IntSeq.of(token), FloatSeq.of(new float[1]), 0)))
                .get(0)
                .get(0);
    }

    @Tag("heavy")
    @Test
    void completionsReturnTheNMostLikelyTokensAndTheChosenOne() throws Exception {
        int[] prompt = engine.codec(model).encode("plan-path-v1 plan\n#.A\n..G\ntool: D\n>");
        JsonNode r = post(
                "/v1/completions",
                "{\"model\":\"tiny\",\"prompt\":" + Arrays.toString(prompt)
                        + ",\"max_tokens\":4,\"temperature\":1.0,\"seed\":5,\"logprobs\":5,\"return_token_ids\":true}");
        JsonNode lp = r.at("/choices/0/logprobs");
        JsonNode ids = r.at("/choices/0/token_ids");
        assertThat(ids.size()).isPositive();
        List<Integer> prefix = new ArrayList<>(Arrays.stream(prompt).boxed().toList());
        for (int t = 0; t < ids.size(); t++) {
            JsonNode top = lp.path("top_logprobs").get(t);
            assertThat(top.size()).isBetween(5, 6); // the five, and the chosen one when it is not among them
            String chosen = lp.path("tokens").get(t).asText();
            assertThat(top.has(chosen)).isTrue();
            int[] before = prefix.stream().mapToInt(Integer::intValue).toArray();
            double previous = Double.POSITIVE_INFINITY;
            int count = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = top.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (++count > 5) {
                    break; // the chosen token, after the five
                }
                double v = e.getValue().asDouble();
                assertThat(v).isLessThanOrEqualTo(previous);
                previous = v;
                int[] id = engine.codec(model).encode(e.getKey());
                assertThat(id).hasSize(1);
                assertThat(v).as("%s at %d", e.getKey(), t).isCloseTo(logprob(before, id[0]), offset(1e-4));
            }
            // no token outside the five is more likely than the fifth
            for (int other = 0; other < 128; other++) {
                String piece = engine.codec(model).decode(new int[] {other});
                if (!top.has(piece) && engine.codec(model).encode(piece).length == 1) {
                    assertThat(logprob(before, other)).isLessThanOrEqualTo(previous + 1e-5);
                }
            }
            prefix.add(ids.get(t).asInt());
        }
    }

    @Test
    void chatReturnsTopLogprobsWithTokensAndBytes() throws Exception {
        JsonNode r = post(
                "/v1/chat/completions",
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"plan-path-v1 plan\\n#.A\\n>\"}],"
                        + "\"max_tokens\":3,\"temperature\":0,\"logprobs\":true,\"top_logprobs\":3}");
        JsonNode content = r.at("/choices/0/logprobs/content");
        assertThat(content.size()).isPositive();
        for (JsonNode tok : content) {
            JsonNode top = tok.path("top_logprobs");
            assertThat(top).hasSize(3);
            assertThat(top.get(0).path("logprob").asDouble())
                    .isGreaterThanOrEqualTo(top.get(1).path("logprob").asDouble());
            assertThat(top.get(1).path("logprob").asDouble())
                    .isGreaterThanOrEqualTo(top.get(2).path("logprob").asDouble());
            // greedy: the chosen token is the most likely one
            assertThat(top.get(0).path("token").asText())
                    .isEqualTo(tok.path("token").asText());
            assertThat(top.get(0).path("logprob").asDouble())
                    .isCloseTo(tok.path("logprob").asDouble(), offset(1e-4));
            assertThat(top.get(0).path("bytes")).isEqualTo(tok.path("bytes"));
        }
        // and streamed: each chunk's token carries its alternatives
        var stream = HttpCalls.post(
                server.uri().resolve("/v1/chat/completions"),
                "{\"model\":\"tiny\",\"messages\":[{\"role\":\"user\",\"content\":\"plan-path-v1 plan\\n#.A\\n>\"}],"
                        + "\"max_tokens\":3,\"temperature\":0,\"logprobs\":true,\"top_logprobs\":2,\"stream\":true}");
        assertThat(stream.body()).contains("\"top_logprobs\":[{\"token\"");
    }
}

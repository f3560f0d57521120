package org.pettingllms.tinker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The client's side of the protocol against a scripted server: futures polled through {@code try_again}, transient
 * statuses retried, refusals and failed runs named, request bodies as the SDK sends them.
 */
class TinkerClientTest {
    /** A status and a body. */
    record Answer(int status, String body) {}

    HttpServer server;
    final List<String> seen = new CopyOnWriteArrayList<>();
    final Map<String, JsonNode> bodies = new ConcurrentHashMap<>();

    /** A server whose answer to {@code /api/v1/<op>} is {@code script.apply(op)}. */
    TinkerClient start(Function<String, Answer> script, Duration deadline) throws IOException {
        return start((op, body) -> script.apply(op), deadline);
    }

    /** A server whose answer to {@code /api/v1/<op>} with {@code body} is {@code script.apply(op, body)}. */
    TinkerClient start(java.util.function.BiFunction<String, JsonNode, Answer> script, Duration deadline)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/", (HttpExchange x) -> {
            String op = x.getRequestURI().getPath().substring("/api/v1/".length());
            String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            seen.add(op + " key=" + x.getRequestHeaders().getFirst("X-API-Key"));
            JsonNode json = TinkerClient.JSON.readTree(body);
            bodies.put(op, json);
            Answer a = script.apply(op, json);
            byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(a.status(), out.length);
            x.getResponseBody().write(out);
            x.close();
        });
        server.start();
        return new TinkerClient(new TinkerClient.Settings(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), "tml-test", deadline));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Tag("heavy")
    @Test
    void aFutureIsPolledUntilItsResultAndServerErrorsAreRetried() throws Exception {
        int[] submits = {0};
        int[] polls = {0};
        TinkerClient c = start(
                op -> switch (op) {
                    case "optim_step" ->
                        ++submits[0] <= 2
                                ? new Answer(503, "{\"detail\": \"busy\"}")
                                : new Answer(200, "{\"request_id\": \"7\"}");
                    case "retrieve_future" ->
                        ++polls[0] <= 2
                                ? new Answer(200, "{\"type\": \"try_again\", \"request_id\": \"7\"}")
                                : new Answer(200, "{\"type\": \"optim_step\", \"metrics\": {\"grad_norm\": 0.5}}");
                    default -> new Answer(404, "{}");
                },
                Duration.ofSeconds(30));
        JsonNode r = c.run(
                "optim_step",
                TinkerClient.JSON.createObjectNode().put("model_id", "m").put("seq_id", 1));
        assertThat(r.path("metrics").path("grad_norm").asDouble()).isEqualTo(0.5);
        assertThat(submits[0]).isEqualTo(3);
        assertThat(polls[0]).isEqualTo(3);
        assertThat(bodies.get("retrieve_future").path("request_id").asText()).isEqualTo("7");
        assertThat(seen).allSatisfy(s -> assertThat(s).endsWith("key=tml-test"));
        c.close();
    }

    @Test
    void aFailedRunAndRefusalsEndWithTheirMessage() throws Exception {
        TinkerClient c = start(
                op -> switch (op) {
                    case "forward_backward" -> new Answer(200, "{\"request_id\": \"1\"}");
                    case "retrieve_future" -> new Answer(200, "{\"error\": \"bad datum 3\", \"category\": \"user\"}");
                    case "create_model" -> new Answer(401, "{\"detail\": \"invalid API key\"}");
                    case "optim_step" -> new Answer(422, "{\"detail\": [{\"loc\": [\"adam_params\"]}]}");
                    default -> new Answer(404, "{\"detail\": \"Not Found\"}");
                },
                Duration.ofSeconds(30));
        assertThatThrownBy(() -> c.run("forward_backward", TinkerClient.JSON.createObjectNode()))
                .isInstanceOf(TinkerException.class)
                .hasMessage("forward_backward failed (user): bad datum 3");
        assertThatThrownBy(() -> c.run("create_model", TinkerClient.JSON.createObjectNode()))
                .hasMessageContaining("create_model: the service refused the API key (401): invalid API key");
        assertThatThrownBy(() -> c.run("optim_step", TinkerClient.JSON.createObjectNode()))
                .hasMessageContaining("optim_step refused (422): [{\"loc\":[\"adam_params\"]}]");
        assertThatThrownBy(() -> c.call("weights_info", TinkerClient.JSON.createObjectNode()))
                .hasMessageContaining("weights_info: not found at http://127.0.0.1:")
                .satisfies(e -> assertThat(((TinkerException) e).status()).isEqualTo(404));
        c.close();
    }

    @Tag("heavy")
    @Test
    void aServiceThatStaysDownFailsAtTheDeadline() throws Exception {
        TinkerClient c = start(op -> new Answer(503, "{\"detail\": \"down\"}"), Duration.ofSeconds(2));
        long t0 = System.nanoTime();
        assertThatThrownBy(c::session)
                .isInstanceOf(TinkerException.class)
                .hasMessageContaining("create_session: gave up after")
                .hasMessageContaining("last: 503 down");
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5);
        c.close();
    }

    @Test
    void theSessionIsCreatedOnceAndSeqIdsCountPerTrainingClient() throws Exception {
        TinkerClient c = start(
                op -> new Answer(200, "{\"type\": \"create_session\", \"session_id\": \"session_1\"}"),
                Duration.ofSeconds(30));
        assertThat(c.session()).isEqualTo("session_1");
        assertThat(c.session()).isEqualTo("session_1");
        assertThat(seen.stream().filter(s -> s.startsWith("create_session"))).hasSize(1);
        assertThat(bodies.get("create_session").path("type").asText()).isEqualTo("create_session");
        assertThat(List.of(c.nextSeq("a"), c.nextSeq("a"), c.nextSeq("b"))).containsExactly(1, 2, 1);
        assertThat(List.of(c.nextModelSeq(), c.nextModelSeq())).containsExactly(0, 1);
        c.close();
    }

    @Test
    void aLargeMiniBatchGoesInChunksWhoseLogprobsComeBackInOrder() throws Exception {
        Map<String, JsonNode> requests = new ConcurrentHashMap<>();
        List<Integer> chunkSizes = new CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger ids = new java.util.concurrent.atomic.AtomicInteger();
        TinkerClient c = start(
                (op, body) -> switch (op) {
                    case "create_session" -> new Answer(200, "{\"session_id\": \"s\"}");
                    case "create_model", "forward_backward" -> {
                        String id = Integer.toString(ids.incrementAndGet());
                        requests.put(id, body);
                        if (op.equals("forward_backward")) {
                            chunkSizes.add(body.toString().length());
                        }
                        yield new Answer(200, "{\"request_id\": \"" + id + "\"}");
                    }
                    case "retrieve_future" -> {
                        JsonNode asked = requests.get(body.path("request_id").asText());
                        if (!asked.has("forward_backward_input")) {
                            yield new Answer(200, "{\"model_id\": \"m\", \"type\": \"create_model\"}");
                        }
                        // each datum's logprobs: its first target token's id at every position
                        com.fasterxml.jackson.databind.node.ObjectNode r = TinkerClient.JSON.createObjectNode();
                        var outs = r.putArray("loss_fn_outputs");
                        for (JsonNode d : asked.path("forward_backward_input").path("data")) {
                            var lp = outs.addObject().putObject("logprobs").putArray("data");
                            JsonNode targets = d.path("loss_fn_inputs")
                                    .path("target_tokens")
                                    .path("data");
                            targets.forEach(t -> lp.add(-targets.get(0).asDouble()));
                        }
                        r.putObject("metrics").put("loss:sum", 0.0);
                        yield new Answer(200, r.toString());
                    }
                    default -> new Answer(404, "{}");
                },
                Duration.ofSeconds(30));
        TinkerLearner learner = new TinkerLearner(c, new TinkerLearner.Settings("tiny", 8, 1));
        List<org.pettingllms.core.backend.TrainExample> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 120; i++) {
            int[] completion = new int[3000];
            java.util.Arrays.fill(completion, 100 + i);
            float[] old = new float[3000];
            java.util.Arrays.fill(old, -(100 + i));
            batch.add(new org.pettingllms.core.backend.TrainExample(
                    org.pettingllms.core.data.IntSeq.of(1, 100 + i),
                    org.pettingllms.core.data.IntSeq.of(completion),
                    org.pettingllms.core.data.FloatSeq.of(old),
                    i % 2 == 0 ? 1 : -1));
        }
        var stats = learner.forwardBackward(
                new org.pettingllms.core.data.PolicyRef("m", "a"),
                batch,
                org.pettingllms.core.backend.LossConfig.DEFAULT);
        assertThat(chunkSizes)
                .as("about 4 MB a request")
                .hasSizeGreaterThan(1)
                .allSatisfy(n -> assertThat(n).isLessThan(4_200_000));
        assertThat(stats.tokens()).isEqualTo(120 * 3000);
        assertThat(stats.logprobShift())
                .as("each example got its own chunk's logprobs back, in order: ratio 1 everywhere")
                .isZero();
        c.close();
    }
}

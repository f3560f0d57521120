package org.pettingllms.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.testkit.FakeInferenceServer;
import org.pettingllms.testkit.FakeInferenceServer.RecordedRequest;
import org.pettingllms.testkit.FakeInferenceServer.Response;

/** Balancing, retries, dropping and re-admitting replicas, against fake vLLM servers on loopback. */
class ReplicasTest {
    static final PolicyRef BASE = PolicyRef.of("m");
    final List<FakeInferenceServer> servers = new ArrayList<>();

    /** A fake vLLM replica: answers one fixed choice per requested candidate, or {@code failWith} while set. */
    final class Fake {
        final FakeInferenceServer server = FakeInferenceServer.start();
        final AtomicInteger failWith = new AtomicInteger(0);
        final AtomicBoolean slow = new AtomicBoolean();
        /** While set, a generation request waits until it is counted down. */
        volatile CountDownLatch hold;

        Fake() {
            servers.add(server);
            server.answer("/health", r -> Response.status(failWith.get() == 0 ? 200 : 503));
            server.answer("/v1/completions", this::complete);
        }

        private Response complete(RecordedRequest request) {
            Response answer = failWith.get() != 0 ? Response.error(failWith.get(), "nope") : choices(request);
            if (slow.get()) {
                answer = answer.delayed(Duration.ofMillis(1500));
            }
            return hold != null ? answer.heldUntil(hold) : answer;
        }

        private static Response choices(RecordedRequest request) {
            var body = request.json();
            StringBuilder choices = new StringBuilder();
            for (int i = 0; i < body.path("n").asInt(); i++) {
                choices.append(i > 0 ? "," : "")
                        .append("{\"index\":")
                        .append(i)
                        .append(",\"text\":\"ab\",")
                        .append("\"logprobs\":{\"token_logprobs\":[-0.5,-0.25]},\"finish_reason\":\"length\",")
                        .append("\"stop_reason\":null,\"token_ids\":[7,8]}");
            }
            return Response.json(
                    200, "{\"model\":\"" + body.path("model").asText() + "\",\"choices\":[" + choices + "]}");
        }

        int generate() {
            return server.requestCount("/v1/completions");
        }

        int health() {
            return server.requestCount("/health");
        }

        URI uri() {
            return server.uri();
        }
    }

    @AfterEach
    void stop() {
        servers.forEach(FakeInferenceServer::close);
    }

    OpenAiSampler sampler(List<URI> uris, Duration timeout) {
        return new OpenAiSampler(new OpenAiSampler.Options(uris, Protocol.VLLM, "m", 16, timeout, 6), m -> null);
    }

    List<Completion> sample(OpenAiSampler s, int n) {
        return s.sampleTokens(BASE, new int[] {1, 2}, n, new SamplingParams(1, 0, 1, 2, List.of(), 5));
    }

    @Tag("heavy")
    @Test
    void failingReplicasAreRetriedElsewhereDroppedAndReadmittedAfterAHealthCheck() throws Exception {
        Fake bad = new Fake();
        Fake good = new Fake();
        bad.failWith.set(503);
        try (OpenAiSampler s = sampler(List.of(bad.uri(), good.uri()), Duration.ofSeconds(5))) {
            for (int i = 0; i < 12; i++) {
                List<Completion> out = sample(s, 3);
                assertThat(out)
                        .hasSize(3)
                        .allSatisfy(c -> assertThat(c.tokens().toArray()).containsExactly(7, 8));
                assertThat(out.get(0).source()).startsWith(good.uri().toString());
            }
            assertThat(bad.generate())
                    .as("dropped after three failures in a row")
                    .isEqualTo(3);
            assertThat(good.generate()).isEqualTo(12);
            bad.failWith.set(0);
            Thread.sleep(2100); // the cooldown
            for (int i = 0; i < 6; i++) {
                sample(s, 1);
            }
            assertThat(bad.health()).as("health checked before re-admission").isPositive();
            assertThat(bad.generate()).as("re-admitted").isGreaterThan(3);
        }
    }

    @Tag("heavy")
    @Test
    void aClientErrorIsNotRetriedAndATimeoutIs() throws Exception {
        Fake a = new Fake();
        a.failWith.set(400);
        try (OpenAiSampler s = sampler(List.of(a.uri()), Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> sample(s, 1))
                    .hasMessageContaining("answered 400")
                    .hasMessageContaining("nope");
            assertThat(a.generate()).isEqualTo(1);
        }
        Fake slow = new Fake();
        slow.slow.set(true);
        Fake fast = new Fake();
        try (OpenAiSampler s = sampler(List.of(slow.uri(), fast.uri()), Duration.ofMillis(500))) {
            for (int i = 0; i < 4; i++) {
                assertThat(sample(s, 2)).hasSize(2);
            }
            assertThat(fast.generate()).isEqualTo(4);
        }
    }

    @Test
    void aDroppedConnectionIsRetriedAndTheRequestSentAgainUnchanged() throws Exception {
        Fake a = new Fake();
        a.server.enqueue("/v1/completions", Response.dropConnection());
        try (OpenAiSampler s = sampler(List.of(a.uri()), Duration.ofSeconds(5))) {
            assertThat(sample(s, 2))
                    .hasSize(2)
                    .allSatisfy(c -> assertThat(c.tokens().toArray()).containsExactly(7, 8));
        }
        List<RecordedRequest> sent = a.server.requests().stream()
                .filter(r -> r.path().equals("/v1/completions"))
                .toList();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).json()).isEqualTo(sent.get(0).json());
        assertThat(sent.get(0).json().path("prompt").toString()).isEqualTo("[1,2]");
    }

    @Test
    void theLeastBusyReplicaGetsTheRequest() throws Exception {
        Fake a = new Fake();
        Fake b = new Fake();
        a.hold = new CountDownLatch(1);
        try (OpenAiSampler s = sampler(List.of(a.uri(), b.uri()), Duration.ofSeconds(30))) {
            var first = CompletableFuture.supplyAsync(() -> sample(s, 1)); // both idle: a
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (a.generate() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(a.generate()).as("the first request reached a").isEqualTo(1);
            for (int i = 0; i < 3; i++) { // a holds one request, b none: each goes to b
                assertThat(sample(s, 1).get(0).source())
                        .as("a was busy")
                        .startsWith(b.uri().toString());
            }
            a.hold.countDown();
            assertThat(first.get().get(0).source()).startsWith(a.uri().toString());
            assertThat(a.generate()).isEqualTo(1);
            assertThat(b.generate()).isEqualTo(3);
        }
    }
}

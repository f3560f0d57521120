package org.pettingllms.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;

/** Balancing, retries, dropping and re-admitting replicas, against fake vLLM servers on loopback. */
class ReplicasTest {
    static final PolicyRef BASE = PolicyRef.of("m");
    final List<HttpServer> servers = new ArrayList<>();

    /** A fake vLLM replica: answers one fixed choice per requested candidate, or {@code failWith} while set. */
    final class Fake {
        final HttpServer server;
        final AtomicInteger generate = new AtomicInteger();
        final AtomicInteger health = new AtomicInteger();
        final AtomicInteger failWith = new AtomicInteger(0);
        final AtomicBoolean slow = new AtomicBoolean();
        /** While set, a generation request waits until it is counted down. */
        volatile java.util.concurrent.CountDownLatch hold;

        Fake() throws Exception {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/health", ex -> {
                health.incrementAndGet();
                ex.sendResponseHeaders(failWith.get() == 0 ? 200 : 503, -1);
                ex.close();
            });
            server.createContext("/v1/completions", ex -> {
                generate.incrementAndGet();
                var body = Protocol.JSON.readTree(ex.getRequestBody());
                int status = failWith.get();
                try {
                    if (slow.get()) {
                        Thread.sleep(1500);
                    }
                    if (hold != null && !hold.await(20, java.util.concurrent.TimeUnit.SECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (status != 0) {
                    byte[] err = "{\"object\":\"error\",\"message\":\"nope\",\"code\":0}".getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(status, err.length);
                    ex.getResponseBody().write(err);
                    ex.close();
                    return;
                }
                StringBuilder choices = new StringBuilder();
                for (int i = 0; i < body.path("n").asInt(); i++) {
                    choices.append(i > 0 ? "," : "").append("{\"index\":").append(i).append(",\"text\":\"ab\",")
                            .append("\"logprobs\":{\"token_logprobs\":[-0.5,-0.25]},\"finish_reason\":\"length\",")
                            .append("\"stop_reason\":null,\"token_ids\":[7,8]}");
                }
                byte[] out = ("{\"model\":\"" + body.path("model").asText() + "\",\"choices\":[" + choices + "]}")
                        .getBytes(StandardCharsets.UTF_8);
                ex.sendResponseHeaders(200, out.length);
                ex.getResponseBody().write(out);
                ex.close();
            });
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            server.start();
            servers.add(server);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        }
    }

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    OpenAiSampler sampler(List<URI> uris, Duration timeout) {
        return new OpenAiSampler(new OpenAiSampler.Options(uris, Protocol.VLLM, "m", 16, timeout, 6), m -> null);
    }

    List<Completion> sample(OpenAiSampler s, int n) {
        return s.sampleTokens(BASE, new int[] {1, 2}, n, new SamplingParams(1, 0, 1, 2, List.of(), 5));
    }

    @Test
    void failingReplicasAreRetriedElsewhereDroppedAndReadmittedAfterAHealthCheck() throws Exception {
        Fake bad = new Fake();
        Fake good = new Fake();
        bad.failWith.set(503);
        try (OpenAiSampler s = sampler(List.of(bad.uri(), good.uri()), Duration.ofSeconds(5))) {
            for (int i = 0; i < 12; i++) {
                List<Completion> out = sample(s, 3);
                assertThat(out).hasSize(3).allSatisfy(c -> assertThat(c.tokens().toArray()).containsExactly(7, 8));
                assertThat(out.get(0).source()).startsWith(good.uri().toString());
            }
            assertThat(bad.generate.get()).as("dropped after three failures in a row").isEqualTo(3);
            assertThat(good.generate.get()).isEqualTo(12);
            bad.failWith.set(0);
            Thread.sleep(2100); // the cooldown
            for (int i = 0; i < 6; i++) {
                sample(s, 1);
            }
            assertThat(bad.health.get()).as("health checked before re-admission").isPositive();
            assertThat(bad.generate.get()).as("re-admitted").isGreaterThan(3);
        }
    }

    @Test
    void aClientErrorIsNotRetriedAndATimeoutIs() throws Exception {
        Fake a = new Fake();
        a.failWith.set(400);
        try (OpenAiSampler s = sampler(List.of(a.uri()), Duration.ofSeconds(5))) {
            assertThatThrownBy(() -> sample(s, 1)).hasMessageContaining("answered 400").hasMessageContaining("nope");
            assertThat(a.generate.get()).isEqualTo(1);
        }
        Fake slow = new Fake();
        slow.slow.set(true);
        Fake fast = new Fake();
        try (OpenAiSampler s = sampler(List.of(slow.uri(), fast.uri()), Duration.ofMillis(500))) {
            for (int i = 0; i < 4; i++) {
                assertThat(sample(s, 2)).hasSize(2);
            }
            assertThat(fast.generate.get()).isEqualTo(4);
        }
    }

    @Test
    void theLeastBusyReplicaGetsTheRequest() throws Exception {
        Fake a = new Fake();
        Fake b = new Fake();
        a.hold = new java.util.concurrent.CountDownLatch(1);
        try (OpenAiSampler s = sampler(List.of(a.uri(), b.uri()), Duration.ofSeconds(30))) {
            var first = java.util.concurrent.CompletableFuture.supplyAsync(() -> sample(s, 1)); // both idle: a
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (a.generate.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(a.generate.get()).as("the first request reached a").isEqualTo(1);
            for (int i = 0; i < 3; i++) { // a holds one request, b none: each goes to b
                assertThat(sample(s, 1).get(0).source()).as("a was busy").startsWith(b.uri().toString());
            }
            a.hold.countDown();
            assertThat(first.get().get(0).source()).startsWith(a.uri().toString());
            assertThat(a.generate.get()).isEqualTo(1);
            assertThat(b.generate.get()).isEqualTo(3);
        }
    }
}

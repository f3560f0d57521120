package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Http;
import org.pettingllms.http.Slots;

/**
 * Futures as Tinker clients poll them: dedup by key, try_again, results kept for a re-poll and then dropped,
 * failures by kind, and a retry that polls at once never finds its future missing.
 */
class TinkerFuturesTest {
    final ExecutorService pool = Executors.newCachedThreadPool();
    final TinkerFutures futures = new TinkerFutures(200);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    static ObjectNode result(int n) {
        return Http.JSON.createObjectNode().put("n", n);
    }

    @Test
    void aResentRequestGetsItsFirstFutureAndRunsOnce() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        String a = futures.submit("m#3", () -> result(runs.incrementAndGet()), pool);
        String b = futures.submit("m#3", () -> result(runs.incrementAndGet()), pool);
        assertThat(b).isEqualTo(a);
        assertThat(futures.known("m#3")).isEqualTo(a);
        assertThat(futures.poll(a).path("n").asInt()).isEqualTo(1);
        assertThat(futures.poll(a).path("n").asInt())
                .as("kept for a client that polls again")
                .isEqualTo(1);
        assertThat(runs).hasValue(1);
        assertThat(futures.submit(null, () -> result(7), pool)).isNotEqualTo(a);
    }

    @Test
    void aPollWaitsThenSaysTryAgainAndFailuresSayTheirKind() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        String slow = futures.submit(
                null,
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return result(1);
                },
                pool);
        assertThat(futures.poll(slow).path("type").asText()).isEqualTo("try_again");
        release.countDown();
        assertThat(futures.poll(slow).path("n").asInt()).isEqualTo(1);

        String bad = futures.submit(
                null,
                () -> {
                    throw new IllegalArgumentException("position 3 differs");
                },
                pool);
        ObjectNode r = futures.poll(bad);
        assertThat(r.path("error").asText()).isEqualTo("position 3 differs");
        assertThat(r.path("category").asText()).isEqualTo("user");
        String broken = futures.submit(
                null,
                () -> {
                    throw new IllegalStateException();
                },
                pool);
        assertThat(futures.poll(broken).path("category").asText()).isEqualTo("server");
        assertThat(futures.poll(broken).path("error").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThatThrownBy(() -> futures.poll("nope"))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("unknown request_id 'nope'");
    }

    @Test
    void anAnsweredResultIsDroppedAfterItsGrace() throws Exception {
        TinkerFutures quick = new TinkerFutures(200, 0, new Slots(64));
        String id = quick.submit("m#1", () -> result(5), pool);
        assertThat(quick.poll(id).path("n").asInt()).isEqualTo(5);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (quick.held() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(quick.held()).isZero();
        assertThat(quick.known("m#1")).isNull();
        assertThatThrownBy(() -> quick.poll(id)).isInstanceOf(BadRequest.class);
    }

    /** --max-concurrent: a request past the slots gets a 429; a retry of a queued one takes none; a done one frees. */
    @Test
    void requestsPastTheSlotsAreRefusedUntilOneEnds() throws Exception {
        TinkerFutures two = new TinkerFutures(200, 30_000, new Slots(2));
        CountDownLatch release = new CountDownLatch(1);
        java.util.function.Supplier<ObjectNode> held = () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return result(7);
        };
        String a = two.submit("m#1", held, pool);
        two.submit(null, held, pool);
        assertThat(two.submit("m#1", held, pool)).isEqualTo(a); // the same request again: no new slot
        assertThatThrownBy(() -> two.submit("m#2", () -> result(1), pool))
                .isInstanceOfSatisfying(
                        BadRequest.class, e -> assertThat(e.status).isEqualTo(429))
                .hasMessageContaining("2 requests queued or running");
        assertThat(two.known("m#2")).isNull(); // a refused request leaves no future behind
        release.countDown();
        assertThat(two.poll(a).path("n").asInt()).isEqualTo(7);
        long deadline = System.nanoTime() + 5_000_000_000L;
        String c = null;
        while (c == null && System.nanoTime() < deadline) {
            try {
                c = two.submit("m#2", () -> result(3), pool);
            } catch (BadRequest busy) {
                Thread.sleep(10); // the slot is freed just after the result is stored
            }
        }
        assertThat(c).isNotNull();
        ObjectNode r = two.poll(c);
        while (r.path("type").asText().equals("try_again")) {
            r = two.poll(c);
        }
        assertThat(r.path("n").asInt()).isEqualTo(3);
    }

    @Test
    void aRetryThatPollsAtOnceAlwaysFindsItsFuture() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 300; round++) {
                String key = "m#" + round;
                CountDownLatch go = new CountDownLatch(1);
                var polls = new java.util.ArrayList<java.util.concurrent.Future<ObjectNode>>();
                for (int c = 0; c < 4; c++) {
                    polls.add(clients.submit(() -> {
                        go.await();
                        String id = futures.submit(key, () -> result(1), pool);
                        ObjectNode r = futures.poll(id); // a missing future would throw (404)
                        while (r.path("type").asText().equals("try_again")) {
                            r = futures.poll(id);
                        }
                        return r;
                    }));
                }
                go.countDown();
                for (var p : polls) {
                    assertThat(p.get().path("n").asInt()).as("round %d", round).isEqualTo(1);
                }
            }
        } finally {
            clients.shutdownNow();
        }
    }
}

package org.pettingllms.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * Lockstep: the sampler's batches are the same requests in the same order whatever the threads' timing, episodes
 * start in job order within the concurrency, and a failure reaches only its own caller.
 */
class LockstepTest {
    static final PolicyRef POLICY = PolicyRef.of("m");
    static final SamplingParams PARAMS = new SamplingParams(1.0, 0, 1.0, 8, List.of(), 1);

    /** Records each batch it is given as the prompts' texts; answers each prompt with its own text. */
    static final class Recording implements Sampler {
        final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger running = new AtomicInteger();
        volatile int mostRunning;

        @Override
        public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
            throw new AssertionError("lockstep sends every call together");
        }

        @Override
        public List<CompletableFuture<List<Completion>>> sampleTogether(List<Request> requests) {
            batches.add(requests.stream().map(r -> r.prompt().text()).toList());
            return requests.stream()
                    .map(r -> r.prompt().text().contains("fail")
                            ? CompletableFuture.<List<Completion>>failedFuture(new IllegalStateException("bad request"))
                            : CompletableFuture.completedFuture(
                                    List.of(Completion.ofText(r.prompt().text()))))
                    .toList();
        }
    }

    /** Job i makes i % 4 + 1 calls, sleeping a random while (from {@code delays}) before each. */
    static List<Function<Sampler, String>> jobs(int count, Random delays, Recording rec) {
        List<Function<Sampler, String>> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int job = i;
            long[] sleeps = new long[job % 4 + 1];
            for (int c = 0; c < sleeps.length; c++) {
                sleeps[c] = delays.nextInt(4);
            }
            jobs.add(s -> {
                int now = rec.running.incrementAndGet();
                synchronized (rec) {
                    rec.mostRunning = Math.max(rec.mostRunning, now);
                }
                try {
                    StringBuilder seen = new StringBuilder();
                    for (int c = 0; c < sleeps.length; c++) {
                        Thread.sleep(sleeps[c]);
                        seen.append(s.sample(POLICY, Prompt.compact("job " + job + " call " + c), 1, PARAMS)
                                .get(0)
                                .text());
                        seen.append(';');
                    }
                    return seen.toString();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                } finally {
                    rec.running.decrementAndGet();
                }
            });
        }
        return jobs;
    }

    @Test
    void batchesAreTheSameWhateverTheTiming() {
        List<List<String>> first = null;
        for (long seed = 0; seed < 4; seed++) {
            Recording rec = new Recording();
            List<String> results = Lockstep.run(jobs(23, new Random(seed), rec), rec, 7, RolloutProgress.NONE);
            assertThat(results.get(5)).isEqualTo("job 5 call 0;job 5 call 1;");
            assertThat(rec.mostRunning).isLessThanOrEqualTo(7);
            if (first == null) {
                first = rec.batches;
                // the first batch: the first 7 jobs' first calls, in job order
                assertThat(first.get(0))
                        .containsExactly(
                                "job 0 call 0",
                                "job 1 call 0",
                                "job 2 call 0",
                                "job 3 call 0",
                                "job 4 call 0",
                                "job 5 call 0",
                                "job 6 call 0");
                assertThat(first.stream().mapToInt(List::size).sum()).isEqualTo(23 / 4 * 10 + 1 + 2 + 3);
            } else {
                assertThat(rec.batches).as("delays of seed %d", seed).isEqualTo(first);
            }
        }
    }

    @Test
    void aFailedRequestFailsOnlyItsEpisodeAndTheRunReportsIt() {
        Recording rec = new Recording();
        List<Function<Sampler, String>> jobs = new ArrayList<>(jobs(3, new Random(1), rec));
        jobs.add(
                1,
                s -> s.sample(POLICY, Prompt.compact("fail"), 1, PARAMS).get(0).text());
        AtomicInteger done = new AtomicInteger();
        assertThatThrownBy(() -> Lockstep.run(jobs, rec, 8, (finished, total) -> done.incrementAndGet()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("bad request");
        assertThat(done).as("every episode ran to its end").hasValue(4);
        assertThat(rec.batches.get(0)).containsExactly("job 0 call 0", "fail", "job 1 call 0", "job 2 call 0");
    }
}

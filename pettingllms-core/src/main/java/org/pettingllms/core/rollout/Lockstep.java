package org.pettingllms.core.rollout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.util.Failures;

/**
 * Episodes in lockstep with the sampler, so that a seed gives the same run whatever the timing of threads. Each
 * episode runs on its own virtual thread as plain blocking code, but its sampler calls are held until every episode
 * in flight has either asked for its next completions or finished; then all the held calls go to the sampler as one
 * {@link Sampler#sampleTogether} in episode order (and, within an episode, call order). An engine that batches runs
 * exactly those rows together, so which rows share a batch (and with it the last bits of every logit) follows from
 * the episodes alone. Episodes start in job order: the first {@code concurrency} at once, then one for each that
 * finishes; the set that finishes between two batches is itself fixed, so admission is too.
 *
 * <p>The cost is overlap: while the slowest episode steps its environment (a program in the sandbox), the others'
 * next calls wait for it instead of being sampled meanwhile ({@code rollout.batching: dynamic} gives that overlap
 * up for repeatability; docs/USAGE.md).
 */
final class Lockstep {
    private final Sampler sampler;
    private final Object lock = new Object();
    private final List<Held> held = new ArrayList<>();
    private int running;

    private record Held(
            int job,
            int call,
            PolicyRef policy,
            Prompt prompt,
            int n,
            SamplingParams params,
            CompletableFuture<List<Completion>> result) {}

    private Lockstep(Sampler sampler) {
        this.sampler = sampler;
    }

    /**
     * Runs each job with a sampler of its own (its calls held as above), at most {@code concurrency} at once,
     * telling {@code progress} as each ends; returns their results in job order. A job's runtime exception is
     * rethrown as it is.
     */
    static <T> List<T> run(
            List<Function<Sampler, T>> jobs, Sampler sampler, int concurrency, RolloutProgress progress) {
        return new Lockstep(sampler).runAll(jobs, concurrency, progress);
    }

    private <T> List<T> runAll(List<Function<Sampler, T>> jobs, int concurrency, RolloutProgress progress) {
        List<CompletableFuture<T>> results = new ArrayList<>();
        jobs.forEach(j -> results.add(new CompletableFuture<>()));
        int[] next = {0};
        int[] done = {0};
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            class Starter {
                void start(int i) { // under the lock
                    running++;
                    threads.submit(() -> {
                        try {
                            results.get(i).complete(jobs.get(i).apply(party(i)));
                        } catch (Throwable t) {
                            results.get(i).completeExceptionally(t);
                        } finally {
                            List<Held> ready;
                            int finished;
                            synchronized (lock) {
                                running--;
                                if (next[0] < jobs.size()) {
                                    start(next[0]++);
                                }
                                ready = readyBatch();
                                finished = ++done[0];
                            }
                            progress.episodeDone(finished, jobs.size());
                            send(ready);
                        }
                    });
                }
            }
            Starter starter = new Starter();
            synchronized (lock) {
                while (next[0] < Math.min(concurrency, jobs.size())) {
                    starter.start(next[0]++);
                }
            }
            List<T> out = new ArrayList<>(jobs.size());
            for (CompletableFuture<T> f : results) {
                out.add(f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RolloutException("rollout interrupted", e);
        } catch (ExecutionException e) {
            throw Failures.rethrow(e, c -> new RolloutException("episode failed: " + c, c));
        }
    }

    /** The sampler job {@code job} sees: each call held until the batch is complete. */
    private Sampler party(int job) {
        int[] calls = {0};
        return (policy, prompt, n, params) -> {
            Held h = new Held(job, calls[0]++, policy, prompt, n, params, new CompletableFuture<>());
            List<Held> ready;
            synchronized (lock) {
                held.add(h);
                ready = readyBatch();
            }
            send(ready);
            try {
                return h.result().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RolloutException("interrupted while sampling", e);
            } catch (ExecutionException e) {
                throw Failures.rethrow(e, c -> new RolloutException("sampling failed: " + c, c));
            }
        };
    }

    /** Under the lock: the held calls in episode order once every running episode waits on one, else null. */
    private List<Held> readyBatch() {
        if (running == 0 || held.size() < running) {
            return null;
        }
        List<Held> batch = new ArrayList<>(held);
        held.clear();
        batch.sort(Comparator.comparingInt(Held::job).thenComparingInt(Held::call));
        return batch;
    }

    private void send(List<Held> batch) {
        if (batch == null) {
            return;
        }
        List<Sampler.Request> requests = batch.stream()
                .map(h -> new Sampler.Request(h.policy(), h.prompt(), h.n(), h.params()))
                .toList();
        List<CompletableFuture<List<Completion>>> got;
        try {
            got = sampler.sampleTogether(requests);
        } catch (RuntimeException e) {
            batch.forEach(h -> h.result().completeExceptionally(e));
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            CompletableFuture<List<Completion>> to = batch.get(i).result();
            got.get(i).whenComplete((v, e) -> {
                if (e != null) {
                    to.completeExceptionally(
                            e instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                                    ? c.getCause()
                                    : e);
                } else {
                    to.complete(v);
                }
            });
        }
    }
}

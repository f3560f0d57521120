package org.pettingllms.core.rollout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.util.Failures;

/**
 * Runs episodes concurrently, each on its own virtual thread as plain blocking code; at most
 * {@code concurrency} are in flight. Results come back in problem order and do not depend on the thread
 * schedule: every sampler request carries a seed derived from (rollout seed, problem, trajectory, role, turn), and
 * with {@link RolloutConfig#lockstep()} the sampler's batches are made of the same requests in the same order
 * whatever the timing ({@link Lockstep}), so an engine whose rows' last bits depend on their batch gives the same
 * samples too.
 */
public final class RolloutEngine {
    private final Sampler sampler;
    private final RolloutProgress progress;

    public RolloutEngine(Sampler sampler) {
        this(sampler, RolloutProgress.NONE);
    }

    /** @param progress told as each episode finishes (a console progress bar) */
    public RolloutEngine(Sampler sampler, RolloutProgress progress) {
        this.sampler = sampler;
        this.progress = progress;
    }

    /**
     * Rolls out every problem: one tree episode per problem in {@code TREE} mode, {@code k} independent
     * trajectories per problem in {@code PARALLEL} mode.
     */
    public <S> RolloutResult run(Task<S> task, List<Problem> problems, PolicyMap policies, RolloutConfig config) {
        for (String role : task.roles()) {
            policies.policyOf(role); // fail before any work when a role has no policy
        }
        long start = System.nanoTime();
        List<Function<Sampler, EpisodeResult>> episodes = new ArrayList<>();
        for (Problem problem : problems) {
            int trajectories = config.mode() == RolloutConfig.Mode.TREE ? 1 : config.k();
            for (int j = 0; j < trajectories; j++) {
                int trajectory = j;
                episodes.add(s -> new Episode<>(task, problem, trajectory, policies, config, s).run());
            }
        }
        List<EpisodeResult> results;
        if (config.lockstep()) {
            results = Lockstep.run(episodes, sampler, config.concurrency(), progress);
        } else {
            results = inParallel(
                    episodes.stream()
                            .map(e -> (Callable<EpisodeResult>) () -> e.apply(sampler))
                            .toList(),
                    config.concurrency(),
                    progress);
        }
        return new RolloutResult(results, (System.nanoTime() - start) / 1e9);
    }

    /**
     * Runs {@code jobs} in lockstep with {@code sampler} ({@link Lockstep}: each job's calls held until every job in
     * flight waits on one, then sampled together in job order), so their results follow from the jobs alone, whatever
     * the timing of threads; returns them in job order.
     */
    public static <T> List<T> inLockstep(
            List<Function<Sampler, T>> jobs, Sampler sampler, int concurrency, RolloutProgress progress) {
        return Lockstep.run(jobs, sampler, concurrency, progress);
    }

    /**
     * Runs {@code jobs} on virtual threads, at most {@code concurrency} at once, telling {@code progress} as each
     * ends; returns their results in job order. A job's runtime exception is rethrown as it is.
     */
    public static <T> List<T> inParallel(List<Callable<T>> jobs, int concurrency, RolloutProgress progress) {
        Semaphore permits = new Semaphore(concurrency);
        AtomicInteger done = new AtomicInteger();
        List<Future<T>> futures = new ArrayList<>(jobs.size());
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Callable<T> job : jobs) {
                futures.add(pool.submit(() -> {
                    permits.acquire();
                    try {
                        return job.call();
                    } finally {
                        permits.release();
                        progress.episodeDone(done.incrementAndGet(), jobs.size());
                    }
                }));
            }
            List<T> results = new ArrayList<>(futures.size());
            for (Future<T> f : futures) {
                results.add(f.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RolloutException("rollout interrupted", e);
        } catch (ExecutionException e) {
            throw Failures.rethrow(e, c -> new RolloutException("episode failed: " + c, c));
        }
    }
}

package org.pettingllms.core.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.config.RunConfig;

/**
 * Asynchronous training (docs/USAGE.md, "Asynchronous training"): one thread rolls out steps in order, each on the
 * weights {@link AsyncSchedule} names, while the caller's thread trains the steps before it.
 *
 * <p>The protocol, all of it here: rollout k waits until the learner holds the starting weights of step
 * {@code b = weightsOf(k)}, publishes them and samples; step j's update holds its first optimizer step (which changes
 * those weights) until every rollout on them has published (a learner that publishes copies: inference servers) or
 * finished (one whose sampler reads its live weights: the embedded engine); after step j (its validation and
 * checkpoint included) the learner holds the weights of step j + 1. So every rollout samples exactly the weights its
 * step number names, the samples are those of a synchronous run on the same weights, and a seed repeats the run;
 * the trainer's on-policy check still refuses any sample whose version is not the one published for its rollout.
 */
final class AsyncSteps implements AutoCloseable {
    private final Trainer trainer;
    private final RunConfig cfg;
    private final Learner learner;
    private final AsyncSchedule schedule;
    private final ExecutorService thread;
    private final List<CompletableFuture<Rolled>> rolled = new ArrayList<>();
    private final List<CompletableFuture<Void>> published = new ArrayList<>();
    private final List<CompletableFuture<Void>> finished = new ArrayList<>();
    private final Object lock = new Object();
    private int learnerAt; // the step whose starting weights the learner holds; guarded by lock
    private boolean closed; // guarded by lock

    /** A step's rollouts and how long they waited for their weights. */
    private record Rolled(StepRollout rollout, double waitedSeconds) {}

    AsyncSteps(Trainer trainer, RunConfig cfg, Learner learner, int from) {
        this.trainer = trainer;
        this.cfg = cfg;
        this.learner = learner;
        this.schedule = AsyncSchedule.of(cfg, from);
        this.learnerAt = from;
        for (int k = 0; k < cfg.train().steps(); k++) {
            rolled.add(new CompletableFuture<>());
            published.add(new CompletableFuture<>());
            finished.add(new CompletableFuture<>());
        }
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "rollouts");
            t.setDaemon(true);
            return t;
        });
        for (int k = from; k < cfg.train().steps(); k++) {
            int step = k;
            thread.execute(() -> rollout(step));
        }
    }

    /** Trains steps {@code from .. steps-1} as their rollouts arrive; returns the last step's metrics. */
    StepReport run(Consumer<StepReport> onStep) throws IOException {
        StepReport last = null;
        for (int j = schedule.from(); j < schedule.steps(); j++) {
            long t0 = System.nanoTime();
            Rolled r = join(rolled.get(j));
            long t1 = System.nanoTime();
            int step = j;
            OffPolicy offPolicy = new OffPolicy(
                    schedule.staleness(j), cfg.train().async(), () -> hold(step), (t1 - t0) / 1e9, r.waitedSeconds());
            last = trainer.train(j, r.rollout(), new StepTiming(t0, t1), offPolicy);
            // the update, validation and checkpoint are done: the learner holds the weights of step j + 1
            hold(j); // (a step without an optimizer step changed nothing, but its rollouts must have started)
            synchronized (lock) {
                learnerAt = j + 1;
                lock.notifyAll();
            }
            onStep.accept(last);
        }
        return last;
    }

    /** Waits until the rollouts on step j's starting weights allow them to change; returns the seconds waited. */
    private double hold(int j) {
        long t0 = System.nanoTime();
        for (int k : schedule.rolloutsOn(j)) {
            join(learner.publishesCopies() ? published.get(k) : finished.get(k));
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Rollout k on the rollout thread: wait for its weights, publish, sample. */
    private void rollout(int k) {
        try {
            int weights = schedule.weightsOf(k);
            long t0 = System.nanoTime();
            synchronized (lock) {
                while (learnerAt < weights && !closed) {
                    lock.wait();
                }
                if (closed) {
                    throw new IllegalStateException("training stopped before the rollouts of step " + k);
                }
                if (learnerAt != weights) { // the protocol above makes this impossible
                    throw new IllegalStateException("the rollouts of step " + k + " need the weights of step " + weights
                            + ", but the learner already holds those of step " + learnerAt);
                }
            }
            double waited = (System.nanoTime() - t0) / 1e9;
            StepRollout r = trainer.rollout(k, () -> published.get(k).complete(null));
            finished.get(k).complete(null);
            rolled.get(k).complete(new Rolled(r, waited));
        } catch (Throwable e) {
            for (int later = k; later < schedule.steps(); later++) { // no later rollout will run
                rolled.get(later).completeExceptionally(e);
                published.get(later).completeExceptionally(e);
                finished.get(later).completeExceptionally(e);
            }
        }
    }

    /** The future's value, or what made it fail as it was thrown. */
    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for rollouts", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            if (c instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw new CompletionException(c);
        }
    }

    /** Stops the rollouts still waiting and waits for the one in flight to end. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(10, TimeUnit.MINUTES)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}

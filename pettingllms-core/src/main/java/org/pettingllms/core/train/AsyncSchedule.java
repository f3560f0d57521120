package org.pettingllms.core.train;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.pettingllms.core.config.RunConfig;

/**
 * Which weights each step's rollouts use in asynchronous training, fixed by step numbers alone (never by timing), so
 * a seed gives the same samples however the threads run: step k samples on the weights the learner held at the start
 * of step {@code max(k - maxStaleness, start)}, where {@code start} is the first step after the last validation or
 * checkpoint before k (or the run's first step). Restarting there keeps validation and checkpoints exact (no rollout
 * runs while they do) and makes a resumed run the same run: it starts where the uninterrupted one restarted.
 *
 * @param from          the run's first step (0, or the step after the checkpoint it resumed from)
 * @param steps         the run's steps
 * @param maxStaleness  eta
 * @param restartsAfter whether the pipeline restarts after a step (it validates or checkpoints)
 */
record AsyncSchedule(int from, int steps, int maxStaleness, IntPredicate restartsAfter) {
    static AsyncSchedule of(RunConfig cfg, int from) {
        RunConfig.Train t = cfg.train();
        return new AsyncSchedule(
                from,
                t.steps(),
                t.async().maxStaleness(),
                s -> Trainer.due(s, t.validateEvery()) || Trainer.due(s, t.checkpointEvery()));
    }

    /** The step whose starting weights step k's rollouts use. */
    int weightsOf(int k) {
        int start = from;
        for (int s = k - 1; s >= from; s--) {
            if (restartsAfter.test(s)) {
                start = s + 1;
                break;
            }
        }
        return Math.max(start, k - maxStaleness);
    }

    /** Training steps between the weights step k's samples come from and those its update starts from. */
    int staleness(int k) {
        return k - weightsOf(k);
    }

    /** The steps whose rollouts use the starting weights of step j, in order: step j's update must leave them. */
    List<Integer> rolloutsOn(int j) {
        List<Integer> out = new ArrayList<>();
        for (int k = j; k < steps && k <= j + maxStaleness; k++) {
            if (weightsOf(k) == j) {
                out.add(k);
            }
        }
        return out;
    }
}

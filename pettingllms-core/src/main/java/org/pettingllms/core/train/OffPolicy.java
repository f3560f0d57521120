package org.pettingllms.core.train;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.OffPolicyCorrection;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RunConfig.Async;
import org.pettingllms.core.data.PolicyRef;

/**
 * What one step's update does about samples drawn on older weights: corrects the loss ({@link OffPolicyCorrection})
 * when they are stale, holds each optimizer step until the rollouts on the weights it changes allow it, and reports
 * both. {@link #NONE} for a synchronous step: nothing.
 */
class OffPolicy {
    static final OffPolicy NONE = new OffPolicy(0, null, () -> 0.0, 0, 0);

    /** Waits until the learner may change its weights; returns the seconds it waited. */
    @FunctionalInterface
    interface Hold {
        double await();
    }

    private final int staleness;
    private final Async cfg;
    private final Hold hold;
    private final double waitedForRollouts;
    private final double rolloutsWaited;
    private OffPolicyCorrection.Stats corrected = OffPolicyCorrection.Stats.NONE;
    private double heldSeconds;

    /**
     * @param staleness training steps between the weights that sampled and those the update starts from
     * @param waitedForRollouts seconds the trainer waited for the step's rollouts
     * @param rolloutsWaited    seconds the step's rollouts waited for their weights
     */
    OffPolicy(int staleness, Async cfg, Hold hold, double waitedForRollouts, double rolloutsWaited) {
        this.staleness = staleness;
        this.cfg = cfg;
        this.hold = hold;
        this.waitedForRollouts = waitedForRollouts;
        this.rolloutsWaited = rolloutsWaited;
    }

    /** The policy's examples as the loss should see them: as sampled when fresh, else corrected. */
    List<TrainExample> correct(Learner learner, PolicyRef policy, List<TrainExample> examples) {
        if (staleness == 0 || cfg.correction() == OffPolicyCorrection.Kind.NONE) {
            return examples;
        }
        // the proximal policy: this policy's weights before its update (no optimizer step of it has run yet)
        OffPolicyCorrection.Result r =
                OffPolicyCorrection.apply(examples, learner.logprobs(policy, examples), cfg.settings());
        corrected = corrected.plus(r.stats());
        return r.examples();
    }

    void beforeOptimizerStep() {
        heldSeconds += hold.await();
    }

    /** Nothing for a synchronous step; else staleness, the correction's shares and each side's waits. */
    Map<String, Double> metrics() {
        if (cfg == null) {
            return Map.of();
        }
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(Metric.ASYNC_STALENESS, (double) staleness);
        m.put(Metric.ASYNC_DROPPED, corrected.droppedFraction());
        m.put(Metric.ASYNC_WEIGHT, corrected.meanWeight());
        m.put(Metric.ASYNC_LAG, corrected.lag());
        m.put(Metric.ASYNC_WAIT_ROLLOUT, waitedForRollouts);
        m.put(Metric.ASYNC_WAIT_WEIGHTS, rolloutsWaited);
        m.put(Metric.ASYNC_WAIT_HOLD, heldSeconds);
        return m;
    }
}

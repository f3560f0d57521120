package org.pettingllms.core.rollout;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.Task;

/**
 * What a training step rolls out: the episodes of a batch of problems, with their grouped training samples. A
 * task's tree rollouts ({@link #of}) are one kind; an agent program replayed call by call is another.
 */
public interface Rollouts {
    RolloutResult run(List<Problem> problems, PolicyMap policies, RolloutConfig config);

    /** The roles, in the order metrics list them. */
    List<String> roles();

    /** Told the training step that begins (a schedule that trains one side by steps); nothing by default. */
    default void beginStep(int step) {}

    /** Counters kept since the last call (sandbox runs, program replays), for the step metrics; none by default. */
    default Map<String, Double> drainMetrics() {
        return Map.of();
    }

    /** A task's rollouts on {@code sampler}: AT-GRPO tree sampling or parallel trajectories. */
    static <S> Rollouts of(Task<S> task, Sampler sampler, RolloutProgress progress) {
        RolloutEngine engine = new RolloutEngine(sampler, progress);
        return new Rollouts() {
            @Override
            public RolloutResult run(List<Problem> problems, PolicyMap policies, RolloutConfig config) {
                return engine.run(task, problems, policies, config);
            }

            @Override
            public List<String> roles() {
                return task.roles();
            }

            @Override
            public Map<String, Double> drainMetrics() {
                return task.drainMetrics();
            }
        };
    }
}

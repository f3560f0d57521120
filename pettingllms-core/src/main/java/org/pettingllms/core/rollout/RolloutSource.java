package org.pettingllms.core.rollout;

import java.util.List;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.Task;

/**
 * What a run trains and evaluates: its roles (each a policy), its problems and its rollouts. A task's turn-based team
 * is one ({@link #of}); a designer with the executors of its workflows ({@code workflow.DesignedSystem}) another.
 */
public interface RolloutSource {
    /** Versioned id, as a task's. */
    String id();

    /** The roles, in the order metrics list them. */
    List<String> roles();

    /** Where the problems come from. */
    ProblemSource problems(long seed);

    /** The rollouts on {@code sampler}. */
    Rollouts rollouts(Sampler sampler, RolloutProgress progress);

    /** A task's turn-based team: AT-GRPO tree sampling or parallel trajectories ({@link Rollouts#of}). */
    static RolloutSource of(Task<?> task) {
        return new RolloutSource() {
            @Override
            public String id() {
                return task.id();
            }

            @Override
            public List<String> roles() {
                return task.roles();
            }

            @Override
            public ProblemSource problems(long seed) {
                return task.problems(seed);
            }

            @Override
            public Rollouts rollouts(Sampler sampler, RolloutProgress progress) {
                return Rollouts.of(task, sampler, progress);
            }
        };
    }
}

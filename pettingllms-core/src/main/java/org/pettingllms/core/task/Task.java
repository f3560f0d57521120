package org.pettingllms.core.task;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Transition;

/**
 * An environment family with its multi-agent workflow. States are immutable values: {@link #step} returns a new
 * state and never modifies its input, so tree sampling steps K candidates from the same state without copies.
 * A model's bad output (unparseable, illegal) is a value in the transition, never an exception.
 *
 * @param <S> the immutable state type
 */
public interface Task<S> {
    /** Versioned id, for example {@code plan-path-v1}; bumped when observations, rewards or termination change. */
    String id();

    /** The roles in turn order. */
    List<String> roles();

    /** The turn cap T. */
    int maxTurns();

    /**
     * The role whose answer decides success, which a single-agent baseline plays alone (the planner, the reasoner,
     * the coder); the last role by default.
     */
    default String mainRole() {
        return roles().get(roles().size() - 1);
    }

    S initialState(Problem problem);

    /** What {@code role} sees at {@code turn}; a pure function of its arguments. */
    Prompt prompt(S state, String role, int turn, PromptStyle style);

    /** Applies {@code role}'s answer to {@code state}. */
    Transition<S> step(S state, String role, Completion completion);

    /**
     * Counters the task kept since the last call (for example sandbox executions and cache hits), for the step
     * metrics; the trainer drains them after each rollout. None by default.
     */
    default Map<String, Double> drainMetrics() {
        return Map.of();
    }

    /** Where this task's problems come from: generated from seeds unless the task reads a dataset. */
    default ProblemSource problems(long seed) {
        return new SeededProblems(id(), seed);
    }
}

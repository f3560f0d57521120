package org.pettingllms.core.data;

import java.util.Objects;

/**
 * The result of one role's micro-step.
 *
 * @param next    the new state; the input state is never modified
 * @param reward  reward parts of this micro-step
 * @param done    true when the episode is over after this micro-step
 * @param success true when the task counts as solved after this micro-step
 * @param outcome what the step did (OK, penalised, terminal)
 * @param summary one short line for transcripts, for example {@code "RRD -> (3,4) invalid@2"}
 */
public record Transition<S>(
        S next, RewardParts reward, boolean done, boolean success, StepOutcome outcome, String summary) {
    public Transition {
        Objects.requireNonNull(next, "next");
        Objects.requireNonNull(reward, "reward");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(summary, "summary");
    }

    /** The same step leading to another state (a task's own bookkeeping added after the step, such as a count). */
    public Transition<S> withNext(S other) {
        return new Transition<>(other, reward, done, success, outcome, summary);
    }
}

package org.pettingllms.core.data;

import java.util.Objects;

/**
 * One training example: one candidate of one (problem, role, turn) decision.
 *
 * @param problemId    the problem of the episode
 * @param role         the acting role
 * @param turn         the turn, from 0
 * @param policy       the policy (model and adapter) that sampled it and that it trains
 * @param prompt       what the role saw (identical for all candidates of a tree group)
 * @param completion   the answer, with prompt tokens, completion tokens and sampling logprobs
 * @param rewardParts  the micro-step's reward parts
 * @param outcome      what the environment made of this candidate's answer (solved, invalid, unparseable, ...)
 * @param reward       the scalar reward used for the advantage (mixed, see {@code RewardMix})
 * @param unitId samples with the same id form one GRPO unit: they share one reward and count once in
 *                     their group's statistics (a tree candidate is its own unit; in parallel sampling all
 *                     decisions of one trajectory are one unit)
 * @param candidate    index of this candidate among the K of its decision (tree) or the trajectory index
 * @param chosen       true when the episode continued from this candidate
 * @param weight       the sample's share of its unit in the loss (its advantage is scaled by it): 1 for an episode's
 *                     decisions; 1 / n for each of a role's n calls in one execution of a designed workflow, so
 *                     that a long workflow does not outweigh a short one (docs/WORKFLOWS.md)
 */
public record Sample(
        String problemId,
        String role,
        int turn,
        PolicyRef policy,
        Prompt prompt,
        Completion completion,
        RewardParts rewardParts,
        StepOutcome outcome,
        double reward,
        String unitId,
        int candidate,
        boolean chosen,
        double weight) {
    /** A sample of weight 1. */
    public Sample(
            String problemId,
            String role,
            int turn,
            PolicyRef policy,
            Prompt prompt,
            Completion completion,
            RewardParts rewardParts,
            StepOutcome outcome,
            double reward,
            String unitId,
            int candidate,
            boolean chosen) {
        this(
                problemId,
                role,
                turn,
                policy,
                prompt,
                completion,
                rewardParts,
                outcome,
                reward,
                unitId,
                candidate,
                chosen,
                1);
    }

    public Sample {
        Objects.requireNonNull(problemId, "problemId");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(prompt, "prompt");
        Objects.requireNonNull(completion, "completion");
        Objects.requireNonNull(rewardParts, "rewardParts");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(unitId, "unitId");
        if (!Double.isFinite(reward)) {
            throw new IllegalArgumentException("reward must be finite, got " + reward);
        }
        if (!(weight > 0) || !Double.isFinite(weight)) {
            throw new IllegalArgumentException("weight must be finite and > 0, got " + weight);
        }
    }

    public IntSeq promptTokens() {
        return completion.promptTokens();
    }

    public IntSeq completionTokens() {
        return completion.tokens();
    }

    public FloatSeq samplingLogprobs() {
        return completion.logprobs();
    }

    public Sample withReward(double newReward) {
        return new Sample(
                problemId,
                role,
                turn,
                policy,
                prompt,
                completion,
                rewardParts,
                outcome,
                newReward,
                unitId,
                candidate,
                chosen,
                weight);
    }
}

package org.pettingllms.envs.planning;

import java.util.Objects;

/**
 * The state of a planning episode: the real board, and the tool's latest proposal with its simulated outcome
 * (empty strings when the tool has not spoken this turn, or in single-agent mode).
 *
 * @param lastPlan the plan role's last executed answer and its outcome, for the next turn's prompts
 */
public record PlanningState<B>(B board, String proposal, String proposalOutcome, String lastPlan, boolean success) {
    public PlanningState {
        Objects.requireNonNull(board, "board");
        Objects.requireNonNull(proposal, "proposal");
        Objects.requireNonNull(proposalOutcome, "proposalOutcome");
        Objects.requireNonNull(lastPlan, "lastPlan");
    }

    public static <B> PlanningState<B> start(B board) {
        return new PlanningState<>(board, "", "", "", false);
    }

    public boolean hasProposal() {
        return !proposal.isEmpty() || !proposalOutcome.isEmpty();
    }
}

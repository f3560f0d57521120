package org.pettingllms.core.rollout;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;

/** One micro-step of the path an episode actually took (the chosen candidate). */
public record StepRecord(
        String role,
        int turn,
        Prompt prompt,
        String answer,
        RewardParts reward,
        double mixedReward,
        StepOutcome outcome,
        String summary,
        boolean done,
        boolean success) {}

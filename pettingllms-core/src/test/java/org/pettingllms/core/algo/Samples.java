package org.pettingllms.core.algo;

import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;

/** Hand-made samples for algorithm tests. */
final class Samples {
    private Samples() {}

    static Sample tree(String problem, String role, int turn, int candidate, double reward) {
        return new Sample(
                problem,
                role,
                turn,
                PolicyRef.of("m"),
                Prompt.compact("p"),
                Completion.ofText("a"),
                new RewardParts(reward, 0, 0),
                StepOutcome.OK,
                reward,
                problem + "|" + role + "|" + turn + "#" + candidate,
                candidate,
                false);
    }

    static Sample trajectory(String problem, String role, int turn, int trajectory, double reward) {
        return new Sample(
                problem,
                role,
                turn,
                PolicyRef.of("m"),
                Prompt.compact("p"),
                Completion.ofText("a"),
                new RewardParts(reward, 0, 0),
                StepOutcome.OK,
                reward,
                problem + "#" + trajectory,
                trajectory,
                false);
    }
}

package org.pettingllms.testkit;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.task.Task;

/**
 * The success rate a scripted policy (an oracle, its wrong twin) reaches on a task's problems: one greedy episode a
 * problem, the policy playing every role, as the tasks' tests check that their rewards score the oracle 100% and the
 * wrong policy 0%.
 */
public final class GreedyEvaluation {
    private GreedyEvaluation() {}

    /** @param maxTokens where an answer is cut, as a model's would be */
    public static double successRate(
            Task<?> task, TextPolicy policy, List<Problem> problems, PromptStyle style, int maxTokens) {
        PolicyMap pm =
                PolicyMap.forLevel(task.roles().size() == 1 ? Level.L0 : Level.L1, task.roles(), "oracle", Set.of());
        RolloutConfig rc = new RolloutConfig(
                RolloutConfig.Mode.PARALLEL,
                1,
                true,
                style,
                new SamplingParams(0, 0, 1, maxTokens, List.of(), 1),
                RewardMix.PAPER,
                16);
        return RolloutStats.of(
                        new RolloutEngine(new TextPolicySampler(policy)).run(task, problems, pm, rc), task.roles())
                .successRate();
    }
}

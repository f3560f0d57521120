package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.engine.TorchSampler;

/**
 * A rollout on the embedded engine in lockstep gives the same token ids and logprobs whatever the timing: episodes
 * that step their environment after random delays (so their requests arrive in a different order each time), fewer
 * episodes in flight than problems (so admission varies too), tree and parallel sampling, two adapters.
 */
class RepeatableRolloutTest {
    /** A task whose every environment step first sleeps a random while (unseeded: different each run). */
    record Jittery<S>(Task<S> task) implements Task<S> {
        @Override
        public String id() {
            return task.id();
        }

        @Override
        public List<String> roles() {
            return task.roles();
        }

        @Override
        public int maxTurns() {
            return task.maxTurns();
        }

        @Override
        public S initialState(Problem problem) {
            return task.initialState(problem);
        }

        @Override
        public Prompt prompt(S state, String role, int turn, PromptStyle style) {
            return task.prompt(state, role, turn, style);
        }

        @Override
        public Transition<S> step(S state, String role, Completion completion) {
            try {
                Thread.sleep(ThreadLocalRandom.current().nextInt(4));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return task.step(state, role, completion);
        }
    }

    @Test
    void lockstepRolloutsAreTheSameWhateverTheTiming() throws Exception {
        var game =
                new PlanningTask<>(new PlanPathGame(new PlanPathGame.Options(4, 4, 0.2)), List.of("tool", "plan"), 2);
        Task<?> task = new Jittery<>(game);
        PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "tiny", Set.of());
        List<Problem> problems = new SeededProblems(game.id(), 0).problems(Split.TRAIN, 0, 6);
        for (RolloutConfig.Mode mode : RolloutConfig.Mode.values()) {
            RolloutConfig cfg = new RolloutConfig(
                    mode,
                    3,
                    true,
                    PromptStyle.COMPACT,
                    new SamplingParams(1.0, 0, 1.0, 6, List.of("\n"), 1),
                    RewardMix.PAPER,
                    4,
                    true); // dynamic batching (false) fails this test: sample 3 of the tree's second run differs
            List<List<Sample>> runs = new ArrayList<>();
            for (int run = 0; run < 3; run++) {
                try (PolicyRegistry reg = TorchLearnerTest.registry();
                        TorchSampler sampler = new TorchSampler(reg, m -> TorchSamplerTest.CHARS, 64, 2000)) {
                    runs.add(new RolloutEngine(sampler)
                            .run(task, problems, l2, cfg)
                            .samples());
                }
            }
            assertThat(runs.get(0)).hasSizeGreaterThan(20);
            for (int run = 1; run < runs.size(); run++) {
                assertThat(runs.get(run)).as("%s run %d", mode, run).hasSameSizeAs(runs.get(0));
                for (int i = 0; i < runs.get(0).size(); i++) {
                    Sample a = runs.get(0).get(i);
                    Sample b = runs.get(run).get(i);
                    assertThat(b.completionTokens())
                            .as("%s run %d sample %d", mode, run, i)
                            .isEqualTo(a.completionTokens());
                    assertThat(b.samplingLogprobs())
                            .as("%s run %d sample %d", mode, run, i)
                            .isEqualTo(a.samplingLogprobs());
                }
            }
        }
    }
}

package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.pytorch.jni.JniUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.Advantages;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.algo.PolicyRouter;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TorchSampler;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.train.SequenceBatch;

@org.junit.jupiter.api.Tag("engine")
class TorchSamplerTest {
    /** Printable ASCII to ids 3..97 folded into the 96-token test vocabulary; no stop tokens. */
    static final TextCodec CHARS = new TextCodec() {
        @Override
        public int[] encode(String text) {
            return text.chars().map(c -> 3 + Math.floorMod(c - 32, 93)).toArray();
        }

        @Override
        public String decode(int[] ids) {
            StringBuilder sb = new StringBuilder();
            for (int id : ids) {
                sb.append(id < 3 ? '?' : (char) (32 + id - 3));
            }
            return sb.toString();
        }

        @Override
        public int[] stopTokenIds() {
            return new int[0];
        }
    };

    static SamplingParams params(long seed) {
        return new SamplingParams(1.0, 0, 1.0, 8, List.of(), seed);
    }

    @Test
    void theSamplersOneThreadLeavesOtherThreadsTheirCores() throws Exception {
        int before = onNewThread(JniUtils::getNumThreads);
        try (PolicyRegistry reg = TorchLearnerTest.registry();
                TorchSampler sampler = new TorchSampler(reg, m -> CHARS, 64, 2000, 1)) {
            sampler.sample(new PolicyRef("tiny", "tool"), Prompt.compact("grid\n>"), 2, params(1));
            // the worker set its own count; a thread that starts now (a learner's) still gets the process-wide one
            assertThat(onNewThread(JniUtils::getNumThreads)).isEqualTo(before);
        }
    }

    private static int onNewThread(IntSupplier s) throws InterruptedException {
        int[] out = new int[1];
        Thread t = Thread.ofPlatform().start(() -> out[0] = s.getAsInt());
        t.join();
        return out[0];
    }

    @Test
    void concurrentCallersAreBatchedWithoutChangingTheirResults() throws Exception {
        PolicyRef tool = new PolicyRef("tiny", "tool");
        PolicyRef plan = new PolicyRef("tiny", "plan");
        try (PolicyRegistry reg = TorchLearnerTest.registry();
                TorchSampler sampler = new TorchSampler(reg, m -> CHARS, 64, 2000)) {
            List<List<Completion>> sequential = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                sequential.add(
                        sampler.sample(i % 2 == 0 ? tool : plan, Prompt.compact("grid " + i + "\n>"), 3, params(i)));
            }
            List<Future<List<Completion>>> futures = new ArrayList<>();
            try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 12; i++) {
                    int k = i;
                    futures.add(pool.submit(() -> sampler.sample(
                            k % 2 == 0 ? tool : plan, Prompt.compact("grid " + k + "\n>"), 3, params(k))));
                }
            }
            for (int i = 0; i < 12; i++) {
                List<Completion> a = sequential.get(i);
                List<Completion> b = futures.get(i).get();
                assertThat(b).hasSize(3);
                for (int c = 0; c < 3; c++) {
                    assertThat(b.get(c).tokens()).isEqualTo(a.get(c).tokens());
                    assertThat(b.get(c).text()).isEqualTo(a.get(c).text());
                    assertThat(b.get(c).logprobs().size())
                            .isEqualTo(b.get(c).tokens().size());
                    for (int t = 0; t < a.get(c).logprobs().size(); t++) {
                        assertThat(b.get(c).logprobs().get(t))
                                .isCloseTo(a.get(c).logprobs().get(t), within(1e-4f));
                    }
                }
                assertThat(a.get(0).tokens())
                        .as("candidates differ")
                        .isNotEqualTo(a.get(1).tokens());
            }
        }
    }

    @Test
    void stopStringsEndTheTextAndWeightVersionsAreRecorded() throws Exception {
        PolicyRef tool = new PolicyRef("tiny", "tool");
        try (PolicyRegistry reg = TorchLearnerTest.registry();
                TorchSampler sampler = new TorchSampler(reg, m -> CHARS, 64, 100);
                TorchLearner learner = new TorchLearner(reg, TorchLearnerTest.settings())) {
            Completion free =
                    sampler.sample(tool, Prompt.compact("x>"), 1, params(3)).get(0);
            String stop = free.text().substring(2, 3);
            Completion cut = sampler.sample(
                            tool, Prompt.compact("x>"), 1, new SamplingParams(1.0, 0, 1.0, 8, List.of(stop), 3))
                    .get(0);
            assertThat(cut.text())
                    .isEqualTo(free.text().substring(0, free.text().indexOf(stop)));
            assertThat(cut.weightVersion()).isZero();
            assertThat(learner.publish(tool))
                    .as("publishing alone changes no weights")
                    .isZero();
            assertThat(sampler.sample(tool, Prompt.compact("x>"), 1, params(3))
                            .get(0)
                            .weightVersion())
                    .isZero();
            // an optimizer step changes the weights: samples from now on carry the new version
            learner.forwardBackward(
                    tool,
                    List.of(new TrainExample(cut.promptTokens(), cut.tokens(), cut.logprobs(), 1.0)),
                    LossConfig.DEFAULT);
            learner.optimStep(tool, TorchLearnerTest.adam(1e-3));
            assertThat(learner.publish(tool)).isEqualTo(1);
            assertThat(sampler.sample(tool, Prompt.compact("x>"), 1, params(3))
                            .get(0)
                            .weightVersion())
                    .isEqualTo(1);
        }
    }

    @Test
    void anAtGrpoStepRunsEndToEndOnTheEmbeddedEngine() throws Exception {
        // rollout of a planning game with the tiny model, advantages, routing to per-role adapters, one update each
        var task =
                new PlanningTask<>(new PlanPathGame(new PlanPathGame.Options(4, 4, 0.2)), List.of("tool", "plan"), 2);
        PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "tiny", Set.of());
        try (PolicyRegistry reg = TorchLearnerTest.registry();
                TorchSampler sampler = new TorchSampler(reg, m -> CHARS, 64, 2000);
                TorchLearner learner = new TorchLearner(reg, TorchLearnerTest.settings())) {
            RolloutConfig cfg = new RolloutConfig(
                    RolloutConfig.Mode.TREE,
                    4,
                    true,
                    PromptStyle.COMPACT,
                    new SamplingParams(1.0, 0, 1.0, 6, List.of("\n"), 1),
                    RewardMix.PAPER,
                    8);
            RolloutResult r = new RolloutEngine(sampler)
                    .run(task, new SeededProblems(task.id(), 0).problems(Split.TRAIN, 0, 4), l2, cfg);
            assertThat(r.samples()).isNotEmpty().allSatisfy(s -> {
                assertThat(s.completionTokens().size()).isPositive();
                assertThat(s.samplingLogprobs().size())
                        .isEqualTo(s.completionTokens().size());
                assertThat(s.promptTokens().size()).isPositive();
            });
            List<ScoredSample> scored = Advantages.compute(Grouping.PROBLEM_ROLE_TURN.group(r.samples()), true);
            var routed = PolicyRouter.route(scored, l2);
            assertThat(routed).containsOnlyKeys(new PolicyRef("tiny", "tool"), new PolicyRef("tiny", "plan"));
            for (var e : routed.entrySet()) {
                var stats = learner.forwardBackward(
                        e.getKey(),
                        e.getValue().stream().map(ScoredSample::toTrainExample).toList(),
                        LossConfig.DEFAULT);
                assertThat(stats.tokens()).isPositive();
                assertThat(stats.loss())
                        .as("on-policy start: ratio 1")
                        .isCloseTo(
                                -e.getValue().stream()
                                                .mapToDouble(s -> s.advantage()
                                                        * s.sample()
                                                                .completionTokens()
                                                                .size())
                                                .sum()
                                        / stats.tokens(),
                                within(1e-4));
                assertThat(learner.optimStep(e.getKey(), TorchLearnerTest.adam(1e-3))
                                .skipped())
                        .isFalse();
                learner.publish(e.getKey());
            }
        }
    }

    /** A one-role task for an untrained model: the reward is the share of characters of the answer in "AEIOU". */
    static final class VowelTask implements Task<Integer> {
        @Override
        public String id() {
            return "vowels-v1";
        }

        @Override
        public List<String> roles() {
            return List.of("speaker");
        }

        @Override
        public int maxTurns() {
            return 1;
        }

        @Override
        public Integer initialState(Problem problem) {
            return (int) problem.seed();
        }

        @Override
        public Prompt prompt(Integer state, String role, int turn, PromptStyle style) {
            return Prompt.compact("say vowels " + state + ">");
        }

        @Override
        public Transition<Integer> step(Integer state, String role, Completion c) {
            String t = c.text();
            double share = t.isEmpty()
                    ? 0
                    : t.chars().filter(ch -> "AEIOU".indexOf(ch) >= 0).count() / (double) t.length();
            return new Transition<>(state, new RewardParts(share, 0, 0), true, false, StepOutcome.OK, "");
        }
    }

    @Test
    void anUpdateMovesProbabilityTowardsPositiveAdvantages() throws Exception {
        var task = new VowelTask();
        PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "tiny", Set.of());
        PolicyRef speaker = l2.policyOf("speaker");
        try (PolicyRegistry reg = TorchLearnerTest.registry();
                TorchSampler sampler = new TorchSampler(reg, m -> CHARS, 64, 2000);
                TorchLearner learner = new TorchLearner(reg, TorchLearnerTest.settings())) {
            RolloutConfig cfg = new RolloutConfig(
                    RolloutConfig.Mode.TREE,
                    8,
                    true,
                    PromptStyle.COMPACT,
                    new SamplingParams(1.0, 0, 1.0, 6, List.of(), 1),
                    RewardMix.PAPER,
                    8);
            List<Problem> problems = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                problems.add(Problem.generated("p" + i, i));
            }
            RolloutResult r = new RolloutEngine(sampler).run(task, problems, l2, cfg);
            List<ScoredSample> scored = Advantages.compute(Grouping.PROBLEM_ROLE_TURN.group(r.samples()), true);
            assertThat(scored).anyMatch(s -> s.advantage() != 0);
            learner.forwardBackward(
                    speaker, scored.stream().map(ScoredSample::toTrainExample).toList(), LossConfig.DEFAULT);
            learner.optimStep(speaker, TorchLearnerTest.adam(1e-3));
            // the surrogate improved: sum of A * (new logprob - sampling logprob) > 0
            double moved = 0;
            for (ScoredSample s : scored) {
                moved += s.advantage()
                        * (logprob(reg, speaker, s)
                                - s.sample().samplingLogprobs().sum());
            }
            assertThat(moved).isPositive();
        }
    }

    /** The trainer's logprob of a sample's completion under the policy's current weights. */
    static double logprob(PolicyRegistry reg, PolicyRef ref, ScoredSample s) {
        var sb = new SequenceBatch(
                List.of(s.sample().promptTokens().toArray()),
                List.of(s.sample().completionTokens().toArray()));
        var model = reg.model(ref.model());
        try (var scope = model.manager().newSubManager()) {
            var lp = sb.logprobs(model, scope, LoraRows.all(reg.adapter(ref), 1));
            return lp.logprobs().mul(lp.mask()).sum().getFloat();
        }
    }
}

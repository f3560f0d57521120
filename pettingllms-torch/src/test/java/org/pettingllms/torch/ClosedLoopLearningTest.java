package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The whole on-policy loop learns: the embedded sampler, tree groups, advantages, routing to per-role adapters,
 * PPO updates and weight publishing, on a task whose answer is known. Two roles each answer one character and are
 * rewarded for one target character each: a character the shipped Plan-Path base model gives 1-25% of its
 * first-token mass on that role's prompt (measured, so the test does not depend on the model's details). After a
 * few steps each role's own adapter must sample its target almost always, and the other role's adapter must not
 * have learned it. A sign error, advantages routed to the wrong role or adapter, a sampler on stale weights or
 * rows mixed up between adapters all fail this test. (A fresh random model would not do: LoRA leaves the output
 * head alone, and a random head cannot make any character dominant.)
 */
class ClosedLoopLearningTest {
    static final String A = "a";
    static final String B = "b";
    static final String BOARD = String.join(
            "\n",
            ".....##.#.",
            ".....##...",
            "........#.",
            "..#.....#.",
            "#A........",
            "..G##.....",
            ".#........",
            "#..#...#..",
            "..##.....#",
            ".......##.");
    static final SamplingParams PROBE = new SamplingParams(1.0, 0, 1.0, 1, List.of(), 7);

    /** One decision per role; answering the role's target character is the whole reward. */
    record CharTask(Map<String, Character> targets) implements Task<String> {
        @Override
        public String id() {
            return "target-char-v1";
        }

        @Override
        public List<String> roles() {
            return List.of(A, B);
        }

        @Override
        public int maxTurns() {
            return 1;
        }

        @Override
        public String initialState(Problem problem) {
            return problem.id();
        }

        @Override
        public Prompt prompt(String state, String role, int turn, PromptStyle style) {
            return prompt(role);
        }

        static Prompt prompt(String role) {
            // a Plan-Path planner prompt whose tool printed nothing (a: no output, b: a timeout): the planner plans
            // alone, and its first move is spread over several letters
            return Prompt.compact(
                    "plan-path-v1 plan\n" + BOARD + "\ntool: " + (role.equals(A) ? "no output" : "timeout") + "\n>");
        }

        @Override
        public Transition<String> step(String state, String role, Completion completion) {
            boolean right = hits(targets.get(role), completion.text());
            boolean done = role.equals(B);
            return new Transition<>(
                    state,
                    new RewardParts(right ? 1 : 0, 0, 0),
                    done,
                    done && right,
                    right ? StepOutcome.SOLVED : StepOutcome.OK,
                    completion.text());
        }

        static boolean hits(char target, String text) {
            return !text.isEmpty() && text.charAt(0) == target;
        }
    }

    @Tag("heavy")
    @Test
    void eachRolesAdapterLearnsItsOwnRewardedAnswer(@TempDir Path dir) throws Exception {
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: target-char}\npolicy: {model: '" + model + "', level: L2}\n",
                "test",
                List.of(
                        "train.steps=12",
                        "rollout.problemsPerStep=16",
                        "rollout.k=8",
                        "rollout.sampling.maxTokens=1",
                        "train.learningRate=2.0e-3",
                        "train.miniBatches=2",
                        "train.warmupSteps=0",
                        "train.schedule=constant",
                        "train.checkpointEvery=0",
                        "train.validateEvery=0",
                        "validation.problems=0"));
        PolicyMap policies = PolicyMap.forLevel(Level.L2, List.of(A, B), model, Set.of());
        ProblemSource problems = (split, from, count) -> {
            List<Problem> out = new ArrayList<>();
            for (long i = from; i < from + count; i++) {
                out.add(Problem.generated("p" + i, i));
            }
            return out;
        };
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, policies)) {
            PolicyRef a = policies.policyOf(A);
            PolicyRef b = policies.policyOf(B);
            char targetA = rareCharacter(engine, a, A, null);
            char targetB = rareCharacter(engine, b, B, targetA);
            double aBefore = rate(engine, a, A, targetA);
            double bBefore = rate(engine, b, B, targetB);
            CharTask task = new CharTask(Map.of(A, targetA, B, targetB));

            StepReport last =
                    new Trainer(cfg, task, problems, policies, engine.sampler(), engine.learner(), dir).run(false);

            double aAfter = rate(engine, a, A, targetA);
            double bAfter = rate(engine, b, B, targetB);
            String curve = "'" + targetA + "' " + aBefore + " -> " + aAfter + ", '" + targetB + "' " + bBefore + " -> "
                    + bAfter;
            System.out.println("closed-loop learning: " + curve);
            assertThat(aAfter)
                    .as("role a's adapter answers its target: " + curve)
                    .isGreaterThan(0.9);
            assertThat(bAfter)
                    .as("role b's adapter answers its target: " + curve)
                    .isGreaterThan(0.9);
            assertThat(rate(engine, b, A, targetA))
                    .as("b's adapter did not learn a's target")
                    .isLessThan(0.5);
            assertThat(rate(engine, a, B, targetB))
                    .as("a's adapter did not learn b's target")
                    .isLessThan(0.5);
            assertThat(last.get(Metric.sampled("a", "solved"))).isGreaterThan(0.7);
            assertThat(last.get(Metric.train("sampler_gap", a)))
                    .as("the learner recomputes the sampler's logprobs")
                    .isLessThan(1e-4);
        }
    }

    @Test
    void aSamplerOnStaleWeightsStopsTheStep(@TempDir Path dir) throws Exception {
        // the learner trains one copy of the weights, the sampler reads another that never receives the updates
        // (a server that missed an adapter load): the versions the sampler reads from its weights expose it
        String model =
                SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: target-char}\npolicy: {model: '" + model + "', level: L2}\n",
                "test",
                List.of(
                        "train.steps=2",
                        "rollout.problemsPerStep=2",
                        "rollout.k=2",
                        "rollout.sampling.maxTokens=1",
                        "train.checkpointEvery=0",
                        "train.validateEvery=0",
                        "validation.problems=0"));
        PolicyMap policies = PolicyMap.forLevel(Level.L2, List.of(A, B), model, Set.of());
        ProblemSource problems = (split, from, count) -> LongStream.range(from, from + count)
                .mapToObj(i -> Problem.generated("p" + i, i))
                .toList();
        try (EmbeddedEngine trained = EmbeddedEngine.open(cfg, policies);
                EmbeddedEngine stale = EmbeddedEngine.open(cfg, policies)) {
            Trainer t = new Trainer(
                    cfg,
                    new CharTask(Map.of(A, 'x', B, 'y')),
                    problems,
                    policies,
                    stale.sampler(),
                    trained.learner(),
                    dir);
            t.step(0); // both copies are the untrained weights, version 0
            long now = trained.learner().publish(policies.policyOf(A));
            assertThat(now).isPositive();
            assertThatThrownBy(() -> t.step(1))
                    .hasMessageContaining("off-policy sample")
                    .hasMessageContaining("weight version 0 of " + policies.policyOf(A))
                    .hasMessageContaining("version " + now + " was published");
        }
    }

    /** The most frequent first character with 1-25% of the samples on {@code role}'s prompt, other than {@code not}. */
    static char rareCharacter(EmbeddedEngine engine, PolicyRef policy, String role, Character not) {
        Map<Character, Integer> counts = new TreeMap<>();
        for (Completion c : engine.sampler().sample(policy, CharTask.prompt(role), 512, PROBE)) {
            if (!c.text().isEmpty()) {
                counts.merge(c.text().charAt(0), 1, Integer::sum);
            }
        }
        return counts.entrySet().stream()
                .filter(e ->
                        e.getValue() >= 5 && e.getValue() <= 128 && !e.getKey().equals(not))
                .max(Map.Entry.comparingByValue())
                .orElseThrow(
                        () -> new AssertionError("no character with 1-25% of " + "the first-token mass: " + counts))
                .getKey();
    }

    /** Share of 256 samples of {@code policy} (temperature 1, on {@code role}'s prompt) that start with {@code target}. */
    static double rate(EmbeddedEngine engine, PolicyRef policy, String role, char target) {
        List<Completion> cs = engine.sampler().sample(policy, CharTask.prompt(role), 256, PROBE);
        return cs.stream().filter(c -> CharTask.hits(target, c.text())).count() / 256.0;
    }
}

package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.algo.Advantages;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.core.workflow.DesignConfig;
import org.pettingllms.core.workflow.DesignReport;
import org.pettingllms.core.workflow.DesignTask;
import org.pettingllms.core.workflow.DesignedRollouts;
import org.pettingllms.core.workflow.WorkflowLimits;

/**
 * A designer and its executors rolled out and trained on sums: N designs a problem, M executions each at the
 * rollout's temperature, design rewards the mean of their executions, each execution's calls one unit of weight
 * 1 / n, invalid designs scored and never run, the schedule freezing a side, the same seed the same samples.
 */
class DesignedRolloutsTest {
    static final Pattern SUM = Pattern.compile("What is (\\d+) \\+ (\\d+)\\?");
    static final Pattern NUMBER = Pattern.compile("-?\\d+");

    /** "What is a + b?"; a calculator tool; the answer is the last number in an output. */
    static final DesignTask SUMS = new DesignTask() {
        @Override
        public String id() {
            return "sums-v1";
        }

        @Override
        public List<String> executorRoles() {
            return List.of("solver", "critic");
        }

        @Override
        public ProblemSource problems(long seed) {
            return (split, from, count) -> {
                List<Problem> out = new ArrayList<>();
                for (long i = from; i < from + count; i++) {
                    out.add(Problem.generated(split + "-" + i, seed * 1000 + i));
                }
                return out;
            };
        }

        @Override
        public Posed pose(Problem p) {
            long a = p.seed() % 7;
            long b = p.seed() % 5 + 3;
            return new Posed(
                    "What is " + a + " + " + b + "?",
                    "sum",
                    Map.of("calc", code -> Long.toString(sum(code))),
                    DesignedRolloutsTest::lastNumber,
                    answer -> answer.equals(Long.toString(a + b)) ? 1 : 0);
        }
    };

    static long sum(String code) {
        return NUMBER.matcher(code)
                .results()
                .mapToLong(m -> Long.parseLong(m.group()))
                .sum();
    }

    static String lastNumber(String text) {
        Matcher m = NUMBER.matcher(text);
        String last = "";
        while (m.find()) {
            last = m.group();
        }
        return last;
    }

    static final List<String> DESIGNS = List.of(
            "agent solver: Add the numbers.",
            "<think>a vote helps</think>\n```\nensemble 3 majority\n  agent solver: Add the numbers.\n```",
            "import os\nos.system('true')",
            "sequence\n  agent solver [calc]: Add with the tool.\n  agent critic: Repeat the sum.");

    /**
     * The designer draws one of {@link #DESIGNS}; a solver answers right with probability 0.6 (else one more), the
     * tool's output or the last number it is shown when it has one; the critic repeats the last number it read.
     */
    static final TextPolicy POLICY = (policy, prompt, rng) -> {
        String text = prompt.text();
        if (text.startsWith("design\n")) {
            return DESIGNS.get(rng.nextInt(DESIGNS.size()));
        }
        Matcher m = SUM.matcher(text);
        m.find();
        long right = Long.parseLong(m.group(1)) + Long.parseLong(m.group(2));
        if (text.startsWith("critic\n")) {
            return "It is " + lastNumber(text.substring(m.end()));
        }
        if (text.contains("\ntools: calc\n")) { // the node's tools, as the executor is told them
            return "```calc\n" + m.group(1) + " + " + m.group(2) + "\n```";
        }
        return "The sum is " + (rng.nextDouble() < 0.6 ? right : right + 1);
    };

    static final PolicyMap L2 = PolicyMap.forLevel(Level.L2, List.of("designer", "solver", "critic"), "m", Set.of());

    static DesignedRollouts rollouts(ScriptedSampler sampler, DesignConfig design) {
        return new DesignedRollouts(
                SUMS, sampler, design, WorkflowLimits.of(Set.of("solver"), Set.of()), RolloutProgress.NONE);
    }

    static RolloutConfig rollout(int k, long seed) {
        return new RolloutConfig(
                RolloutConfig.Mode.PARALLEL,
                k,
                false,
                PromptStyle.COMPACT,
                new org.pettingllms.core.backend.SamplingParams(1.0, 0, 1.0, 256, List.of(), seed),
                org.pettingllms.core.algo.RewardMix.PAPER,
                4);
    }

    static final DesignConfig BOTH = new DesignConfig(
            3,
            DesignConfig.ExecutorGroups.PROBLEM,
            DesignConfig.Schedule.SIMULTANEOUS,
            1,
            DesignConfig.Side.EXECUTORS,
            -1,
            0);

    static RolloutResult run(DesignConfig design, long seed) {
        List<Problem> problems = SUMS.problems(1).problems(ProblemSource.Split.TRAIN, 0, 6);
        return rollouts(ScriptedSampler.of(POLICY), design).run(problems, L2, rollout(4, seed));
    }

    @Test
    void designsAreRewardedWithTheMeanOfTheirExecutionsAndInvalidOnesNeverRun() {
        RolloutResult r = run(BOTH, 11);
        List<Sample> designs =
                r.samples().stream().filter(s -> s.role().equals("designer")).toList();
        assertThat(designs).hasSize(6 * 4);
        Set<String> shapes = new HashSet<>();
        for (Sample d : designs) {
            List<EpisodeResult> runs = r.episodes().stream()
                    .filter(e ->
                            d.problemId().equals(e.problem().id() + "|designs") && e.trajectory() / 3 == d.candidate())
                    .toList();
            String summary = runs.get(0).path().get(0).summary();
            shapes.add(summary);
            if (d.outcome() == StepOutcome.UNPARSEABLE) {
                assertThat(d.reward()).isEqualTo(-1.0);
                assertThat(runs).hasSize(1);
                assertThat(runs.get(0).path()).hasSize(1);
                assertThat(summary)
                        .isEqualTo("line 1: 'import' is no node; nodes are agent, sequence, ensemble,"
                                + " debate, reflect, route");
                continue;
            }
            assertThat(runs).as("M = 3 executions").hasSize(3);
            double mean = runs.stream()
                    .mapToDouble(e -> e.success() ? 1 : 0)
                    .average()
                    .orElseThrow();
            assertThat(d.reward()).isEqualTo(mean);
        }
        assertThat(shapes)
                .contains(
                        "agent, up to 1 calls",
                        "ensemble-majority(3)[agent], up to 3 calls",
                        "sequence[agent+calc,agent], up to 2 calls");
        // the tool ran: the calculator's sum reached the critic, whose answer is right
        assertThat(r.episodes().stream()
                        .filter(e -> e.path().get(0).summary().startsWith("sequence"))
                        .allMatch(EpisodeResult::success))
                .isTrue();
    }

    @Test
    void theMetricsCountDesignsAndExecutionsByKind() {
        DesignedRollouts rollouts = rollouts(ScriptedSampler.of(POLICY), BOTH);
        List<Problem> problems = SUMS.problems(1).problems(ProblemSource.Split.TRAIN, 0, 6);
        RolloutResult r = rollouts.run(problems, L2, rollout(4, 11));
        Map<String, Double> m = rollouts.drainMetrics();
        long valid = r.samples().stream()
                .filter(s -> s.role().equals("designer") && s.outcome() == StepOutcome.OK)
                .count();
        assertThat(m.get("design/valid")).isEqualTo((double) valid);
        assertThat(m.get("design/invalid")).isEqualTo(24.0 - valid);
        assertThat(m.get("design/kind/sum/executions")).isEqualTo(3.0 * valid);
        long solved = r.episodes().stream().filter(EpisodeResult::success).count();
        assertThat(m.get("design/kind/sum/solved")).isEqualTo((double) solved);
        // each valid design's shape counted once, under its problem's kind; read back as shares
        Map<String, Long> shapes = r.episodes().stream()
                .flatMap(e -> e.path().stream())
                .filter(st -> st.role().equals("designer") && st.outcome() == StepOutcome.OK)
                .collect(Collectors.groupingBy(
                        st -> st.summary().substring(0, st.summary().lastIndexOf(", up to ")), Collectors.counting()));
        shapes.forEach((shape, count) ->
                assertThat(m.get("design/shape/sum/" + shape)).as(shape).isEqualTo((double) count));
        Map<String, Double> shares = DesignReport.shapesByKind(m, "").get("sum");
        assertThat(shares.values().stream().mapToDouble(Double::doubleValue).sum())
                .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        shapes.forEach((shape, count) -> assertThat(shares.get(shape)).isEqualTo((double) count / valid));
        assertThat(DesignReport.successByKind(m, "")).containsEntry("sum", (double) solved / (3.0 * valid));
        assertThat(DesignReport.lines(m, ""))
                .first()
                .asString()
                .isEqualTo(String.format("success by kind: sum %.1f%%", 100.0 * solved / (3.0 * valid)));
        assertThat(rollouts.drainMetrics()).as("drained").isEmpty();
    }

    @Test
    void anExecutionsCallsAreOneUnitOfWeightOneOverItsCalls() {
        RolloutResult r = run(BOTH, 12);
        Map<String, List<Sample>> units = r.samples().stream()
                .filter(s -> !s.role().equals("designer"))
                .collect(Collectors.groupingBy(Sample::unitId));
        assertThat(units).isNotEmpty();
        boolean sawThree = false;
        for (List<Sample> calls : units.values()) {
            assertThat(calls.stream().mapToDouble(Sample::reward).distinct().count())
                    .isEqualTo(1);
            Map<String, Long> perRole =
                    calls.stream().collect(Collectors.groupingBy(Sample::role, Collectors.counting()));
            assertThat(calls).allSatisfy(s -> assertThat(s.weight()).isEqualTo(1.0 / perRole.get(s.role())));
            sawThree |= calls.size() == 3;
        }
        assertThat(sawThree).as("an ensemble's execution").isTrue();
        // each call trains on its group's advantage over n, so an execution's calls of one role weigh as one
        var groups = Grouping.PROBLEM_ROLE_TURN.group(r.samples());
        List<ScoredSample> scored = Advantages.compute(groups, true);
        boolean nonZero = false;
        for (ScoredSample s : scored) {
            if (s.sample().role().equals("designer")) {
                assertThat(s.toTrainExample().advantage()).isEqualTo(s.advantage());
                continue;
            }
            long n = units.get(s.sample().unitId()).stream()
                    .filter(x -> x.role().equals(s.sample().role()))
                    .count();
            assertThat(s.toTrainExample().advantage()).isEqualTo(s.advantage() * (1.0 / n));
            nonZero |= n == 3 && s.advantage() != 0;
        }
        assertThat(nonZero).isTrue();
        Map<String, Double> ensembleUnits = scored.stream()
                .filter(s -> units.get(s.sample().unitId()) != null
                        && units.get(s.sample().unitId()).size() == 3)
                .collect(Collectors.groupingBy(
                        s -> s.sample().unitId(),
                        Collectors.summingDouble(s -> s.toTrainExample().advantage())));
        for (var e : ensembleUnits.entrySet()) { // one role, three calls: they sum to the unit's advantage
            double a = scored.stream()
                    .filter(s -> s.sample().unitId().equals(e.getKey()))
                    .findFirst()
                    .orElseThrow()
                    .advantage();
            assertThat(e.getValue()).isCloseTo(a, org.assertj.core.data.Offset.offset(1e-9));
        }
    }

    @Test
    void executorsSampleAtTheRolloutTemperatureEachExecutionWithItsOwnSeeds() {
        ScriptedSampler sampler = ScriptedSampler.of(POLICY);
        List<Problem> problems = SUMS.problems(1).problems(ProblemSource.Split.TRAIN, 0, 6);
        rollouts(sampler, BOTH).run(problems, L2, rollout(4, 5));
        List<ScriptedSampler.Call> executor = sampler.calls().stream()
                .filter(c -> !c.policy().adapter().equals("designer"))
                .toList();
        assertThat(executor)
                .allSatisfy(c -> assertThat(c.params().temperature()).isEqualTo(1.0));
        assertThat(executor.stream().map(c -> c.params().seed()).distinct().count())
                .isEqualTo(executor.size());
        // the reference's defect was greedy executors: here the M executions of one design differ
        RolloutResult r = run(BOTH, 5);
        Map<String, String> shapes = new java.util.HashMap<>(); // a design's shape, from its first execution
        r.episodes().stream()
                .filter(e -> e.trajectory() % 3 == 0)
                .forEach(e -> shapes.put(
                        e.problem().id() + "/" + e.trajectory() / 3,
                        e.path().get(0).summary()));
        boolean differ = r.episodes().stream()
                .collect(Collectors.groupingBy(e -> e.problem().id() + "/" + e.trajectory() / 3))
                .entrySet()
                .stream()
                .filter(g -> shapes.get(g.getKey()).startsWith("agent,"))
                .anyMatch(g -> g.getValue().stream()
                                .map(EpisodeResult::success)
                                .distinct()
                                .count()
                        > 1);
        assertThat(differ).isTrue();
    }

    @Test
    void executorGroupsAreTheProblemsOrTheDesigns() {
        DesignConfig byDesign = new DesignConfig(
                3,
                DesignConfig.ExecutorGroups.DESIGN,
                DesignConfig.Schedule.SIMULTANEOUS,
                1,
                DesignConfig.Side.EXECUTORS,
                -1,
                0);
        RolloutResult r = run(byDesign, 3);
        assertThat(r.samples().stream()
                        .filter(s -> !s.role().equals("designer"))
                        .allMatch(s -> s.unitId().startsWith(s.problemId() + "|exec#")))
                .isTrue();
        RolloutResult p = run(BOTH, 3);
        assertThat(p.samples().stream()
                        .filter(s -> !s.role().equals("designer"))
                        .allMatch(s -> !s.problemId().contains("|")))
                .isTrue();
    }

    @Test
    void theDesignersGroupsNeverHoldAnExecutorsWhateverTheGrouping() {
        RolloutResult r = run(BOTH, 4);
        var groups = Grouping.PROBLEM.group(r.samples());
        for (List<Sample> g : groups.values()) {
            assertThat(g.stream().map(s -> s.role().equals("designer")).distinct())
                    .hasSize(1);
        }
        // and each design is counted once in the designer's path records (its first execution holds it)
        long designRecords = r.episodes().stream()
                .flatMap(e -> e.path().stream())
                .filter(st -> st.role().equals("designer"))
                .count();
        assertThat(designRecords).isEqualTo(6 * 4);
    }

    @Test
    void treeSamplingAtNodeCallsContinuesTheBestOfKAndGroupsEachNodesCandidates() {
        DesignConfig tree = new DesignConfig(
                1,
                DesignConfig.ExecutorGroups.PROBLEM,
                DesignConfig.Schedule.SIMULTANEOUS,
                1,
                DesignConfig.Side.EXECUTORS,
                -1,
                0,
                3,
                -1);
        List<Problem> problems = SUMS.problems(1).problems(ProblemSource.Split.TRAIN, 0, 8);
        String chain = "sequence\n  agent solver: Add the numbers.\n  agent critic: Repeat the sum.\n";
        ScriptedSampler sampler = ScriptedSampler.of(POLICY);
        RolloutResult r = new DesignedRollouts(
                        SUMS,
                        sampler,
                        tree,
                        WorkflowLimits.of(Set.of("solver", "critic"), Set.of()),
                        RolloutProgress.NONE,
                        chain)
                .run(problems, L2, rollout(4, 21));
        assertThat(r.episodes()).hasSize(8 * 4);
        Map<String, List<Sample>> nodes = r.samples().stream().collect(Collectors.groupingBy(Sample::problemId));
        assertThat(nodes).hasSize(8 * 4 * 2); // a group per call: two calls an execution
        int anyRight = 0;
        for (List<Sample> g : nodes.values()) {
            assertThat(g).hasSize(3);
            assertThat(g.stream().map(x -> x.prompt().text()).distinct()).hasSize(1);
            assertThat(g.stream().filter(Sample::chosen)).hasSize(1);
            double best = g.stream().mapToDouble(Sample::reward).max().orElseThrow();
            Sample chosen = g.stream().filter(Sample::chosen).findFirst().orElseThrow();
            assertThat(chosen.reward()).as("the best candidate continues").isEqualTo(best);
            for (Sample x : g) {
                // each candidate is paid the score of its own answer
                long a = Long.parseLong(SUM.matcher(x.prompt().text())
                        .results()
                        .findFirst()
                        .orElseThrow()
                        .group(1));
                long b = Long.parseLong(SUM.matcher(x.prompt().text())
                        .results()
                        .findFirst()
                        .orElseThrow()
                        .group(2));
                assertThat(x.reward())
                        .isEqualTo(lastNumber(x.completion().text()).equals(Long.toString(a + b)) ? 1 : 0);
                assertThat(x.weight()).isEqualTo(1.0); // one call of each role an execution
            }
            anyRight += best >= 1 && g.get(0).role().equals("solver") ? 1 : 0;
        }
        // best of 3 at 0.6 each: the solver is right in about 94% of executions, not 60%
        assertThat(anyRight).isGreaterThan(26);
        long solved = r.episodes().stream().filter(EpisodeResult::success).count();
        assertThat(solved).as("the critic repeats the chosen sum").isEqualTo(anyRight);
        assertThat(sampler.calls()).allMatch(c -> c.n() == 3);
    }

    @Test
    void inAGreedyRolloutTheDesignerIsGreedyAndTheExecutorsSampleAtTheirOwnTemperature() {
        DesignConfig warm = new DesignConfig(
                1,
                DesignConfig.ExecutorGroups.PROBLEM,
                DesignConfig.Schedule.SIMULTANEOUS,
                1,
                DesignConfig.Side.EXECUTORS,
                -1,
                0,
                1,
                0.7);
        ScriptedSampler sampler = ScriptedSampler.of(POLICY);
        List<Problem> problems = SUMS.problems(1).problems(ProblemSource.Split.VALIDATION, 0, 6);
        RolloutConfig greedy = new RolloutConfig(
                RolloutConfig.Mode.PARALLEL,
                1,
                false,
                PromptStyle.COMPACT,
                new org.pettingllms.core.backend.SamplingParams(0.0, 0, 1.0, 256, List.of(), 3),
                org.pettingllms.core.algo.RewardMix.PAPER,
                4);
        rollouts(sampler, warm).run(problems, L2, greedy);
        assertThat(sampler.calls()).anyMatch(c -> c.policy().adapter().equals("designer"));
        for (ScriptedSampler.Call c : sampler.calls()) {
            assertThat(c.params().temperature())
                    .as(c.policy().adapter())
                    .isEqualTo(c.policy().adapter().equals("designer") ? 0.0 : 0.7);
        }
    }

    @Test
    void aCallCostTakesFromTheDesignsReward() {
        DesignConfig costly = new DesignConfig(
                3,
                DesignConfig.ExecutorGroups.PROBLEM,
                DesignConfig.Schedule.SIMULTANEOUS,
                1,
                DesignConfig.Side.EXECUTORS,
                -1,
                0.1);
        List<Sample> free = run(BOTH, 9).samples().stream()
                .filter(s -> s.role().equals("designer"))
                .toList();
        List<Sample> paid = run(costly, 9).samples().stream()
                .filter(s -> s.role().equals("designer"))
                .toList();
        for (int i = 0; i < free.size(); i++) {
            if (free.get(i).outcome() == StepOutcome.OK) {
                double calls = free.get(i).completion().text().contains("ensemble")
                        ? 3
                        : free.get(i).completion().text().contains("sequence") ? 2 : 1;
                assertThat(paid.get(i).reward())
                        .isCloseTo(free.get(i).reward() - 0.1 * calls, org.assertj.core.data.Offset.offset(1e-12));
            }
        }
    }

    @Test
    void aSeedGivesTheSameSamples() {
        List<String> a = run(BOTH, 21).samples().stream()
                .map(DesignedRolloutsTest::describe)
                .toList();
        List<String> b = run(BOTH, 21).samples().stream()
                .map(DesignedRolloutsTest::describe)
                .toList();
        assertThat(a).isEqualTo(b);
        assertThat(run(BOTH, 22).samples().stream()
                        .map(DesignedRolloutsTest::describe)
                        .toList())
                .isNotEqualTo(a);
    }

    static String describe(Sample s) {
        return s.problemId() + " " + s.role() + " " + s.unitId() + " "
                + s.prompt().text() + " -> " + s.completion().text() + " " + s.reward() + " " + s.weight();
    }

    @Test
    void theAlternatingScheduleTrainsOneSideAPhase(@TempDir Path dir) throws Exception {
        DesignConfig alternating = new DesignConfig(
                2,
                DesignConfig.ExecutorGroups.PROBLEM,
                DesignConfig.Schedule.ALTERNATING,
                2,
                DesignConfig.Side.EXECUTORS,
                -1,
                0);
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: sums}\npolicy: {model: m, level: L2}\n",
                "test",
                List.of(
                        "train.steps=4",
                        "rollout.problemsPerStep=4",
                        "rollout.k=4",
                        "train.checkpointEvery=0",
                        "train.validateEvery=0",
                        "validation.problems=2"));
        RecordingLearner learner = new RecordingLearner();
        ScriptedSampler sampler = ScriptedSampler.of(POLICY, learner::version);
        Trainer trainer = new Trainer(cfg, rollouts(sampler, alternating), SUMS.problems(1), L2, learner, dir);
        List<Set<String>> trainedPerStep = new ArrayList<>();
        for (int step = 0; step < 4; step++) {
            int before = learner.batches().size();
            trainer.step(step);
            trainedPerStep.add(
                    learner.batches().subList(before, learner.batches().size()).stream()
                            .map(b -> b.policy().adapter())
                            .collect(Collectors.toSet()));
        }
        assertThat(trainedPerStep.get(0)).doesNotContain("designer").isNotEmpty();
        assertThat(trainedPerStep.get(1)).doesNotContain("designer").isNotEmpty();
        assertThat(trainedPerStep.get(2)).containsExactly("designer");
        assertThat(trainedPerStep.get(3)).containsExactly("designer");
        assertThat(alternating.trains(DesignConfig.Side.EXECUTORS, 4)).isTrue();
        PolicyRef designer = new PolicyRef("m", "designer");
        assertThat(learner.optimSteps(designer)).isPositive();
    }
}

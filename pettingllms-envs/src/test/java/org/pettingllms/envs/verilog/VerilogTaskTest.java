package org.pettingllms.envs.verilog;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.ContentSplit;
import org.pettingllms.envs.data.Items;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * {@code verilog-v1} on generated circuits: every reference simulates and every wrong design differs from it on the
 * hidden bench; the oracle team scores all and the wrong one nothing; the tester's reward rewards right expectations
 * and caught wrong designs; the designer sees the tester's failures and may revise; the task contract for the team
 * and the single designer. Needs Icarus Verilog.
 */
class VerilogTaskTest {
    static Icarus icarus;

    @BeforeAll
    static void open() {
        icarus = Icarus.open(2, Icarus.LIMITS);
    }

    private static final Map<List<String>, VerilogTask> TASKS = new java.util.concurrent.ConcurrentHashMap<>();

    /** One task per line-up for the whole class: its judge remembers each problem's simulated readings. */
    static VerilogTask task(List<String> roles) {
        return TASKS.computeIfAbsent(
                List.copyOf(roles),
                r -> new VerilogTask(r, 2, new Items.Generated<>(Circuits.NAME, Circuits::item), icarus, 16));
    }

    static List<VerilogItem> items(VerilogTask t, List<Problem> problems) {
        return problems.stream().map(p -> t.initialState(p).item()).toList();
    }

    static double evaluate(VerilogTask t, TextPolicy policy, List<Problem> problems, PromptStyle style) {
        return GreedyEvaluation.successRate(t, policy, problems, style, 512);
    }

    @Tag("heavy")
    @Test
    void everyReferenceSimulatesAndEveryWrongDesignDiffersFromItOnTheHiddenBench() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        Map<String, Integer> families = new HashMap<>();
        for (Problem p : t.problems(7).problems(Split.TRAIN, 0, 36)) {
            VerilogItem item = t.initialState(p).item();
            List<String> designs = new ArrayList<>();
            designs.add(item.reference());
            designs.addAll(item.mutants());
            List<List<String>> out = t.judge().trusted(item, designs, Stimulus.hidden(item));
            assertThat(out.get(0)).as(item.id()).doesNotContainNull();
            assertThat(String.join(" ", out.get(0)))
                    .as(item.id())
                    .doesNotContain("x")
                    .doesNotContain("z");
            assertThat(item.mutants()).as(item.id()).hasSize(3);
            for (int k = 1; k < out.size(); k++) {
                assertThat(out.get(k))
                        .as(item.id() + " wrong design " + k + ":\n" + designs.get(k))
                        .isNotEqualTo(out.get(0));
            }
            families.merge(item.sequential() ? "sequential" : "combinational", 1, Integer::sum);
        }
        assertThat(families.get("sequential")).isGreaterThan(8);
        assertThat(families.get("combinational")).isGreaterThan(8);
    }

    @Tag("heavy")
    @Test
    void theOracleTeamSolvesEveryProblemAndTheWrongOneNone() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        List<Problem> ps = t.problems(1).problems(Split.TEST, 0, 12);
        List<VerilogItem> items = items(t, ps);
        for (PromptStyle style : List.of(PromptStyle.COMPACT, PromptStyle.CHAT)) {
            assertThat(evaluate(t, t.oracle(items, false), ps, style))
                    .as(style.name())
                    .isEqualTo(1.0);
            assertThat(evaluate(t, t.oracle(items, true), ps, style))
                    .as(style.name())
                    .isEqualTo(0.0);
        }
        VerilogTask single = task(List.of(VerilogTask.DESIGNER));
        assertThat(evaluate(single, single.oracle(items, false), ps, PromptStyle.COMPACT))
                .isEqualTo(1.0);
    }

    @Tag("heavy")
    @Test
    void theDesignerAloneHasTheTeamsCallsAndRevisesOnTheSimulatorsErrors() {
        VerilogTask alone = task(List.of(VerilogTask.DESIGNER));
        assertThat(alone.maxTurns())
                .as("two designs for each of the team's two turns")
                .isEqualTo(4);
        for (Problem p : alone.problems(3).problems(Split.TRAIN, 0, 4)) {
            VerilogState s = alone.initialState(p);
            VerilogItem item = s.item();
            Transition<VerilogState> none = alone.step(s, VerilogTask.DESIGNER, Completion.ofText("```\n```"));
            assertThat(none.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
            assertThat(none.done()).isFalse();
            Transition<VerilogState> broken =
                    alone.step(s, VerilogTask.DESIGNER, Completion.ofText("assign nowhere = ;"));
            assertThat(broken.outcome()).as(item.id()).isEqualTo(StepOutcome.INVALID_ACTION);
            assertThat(broken.done())
                    .as("a design the simulator refuses is revised")
                    .isFalse();
            assertThat(broken.reward().local()).isEqualTo(0.0);
            assertThat(alone.prompt(broken.next(), VerilogTask.DESIGNER, 1, PromptStyle.COMPACT)
                            .text())
                    .contains("\nerror ")
                    .contains("assign nowhere = ;");
            // the first design that runs is the answer: without a tester nothing more is shown
            Transition<VerilogState> right =
                    alone.step(broken.next(), VerilogTask.DESIGNER, Completion.ofText(item.reference()));
            assertThat(right.done()).isTrue();
            assertThat(right.success()).isTrue();
            assertThat(right.reward().team()).isEqualTo(1.0);
            Transition<VerilogState> wrong = alone.step(
                    broken.next(),
                    VerilogTask.DESIGNER,
                    Completion.ofText(item.mutants().get(0)));
            assertThat(wrong.done()).isTrue();
            assertThat(wrong.success()).isFalse();
        }
    }

    @Tag("heavy")
    @Test
    void theTesterIsRewardedForRightExpectationsThatCatchWrongDesigns() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        for (Problem p : t.problems(2).problems(Split.TRAIN, 0, 8)) {
            VerilogState s = t.initialState(p);
            VerilogItem item = s.item();
            VerilogOracle oracle = new VerilogOracle(List.of(item), false, t.judge(), 16);
            List<Vectors.Vector> right = oracle.vectors(item, item.reference());
            Transition<VerilogState> good =
                    t.step(s, VerilogTask.TESTER, Completion.ofText(Vectors.render(right, item)));
            assertThat(good.reward().local()).as(item.id()).isGreaterThan(0.5);
            if (!item.sequential()) { // the oracle picks a step where each wrong design differs
                assertThat(good.reward().local()).as(item.id()).isEqualTo(1.0);
            }
            // the same inputs with the first wrong design's outputs: some expectations are wrong
            List<Vectors.Vector> wrong = oracle.vectors(item, item.mutants().get(0));
            Transition<VerilogState> bad =
                    t.step(s, VerilogTask.TESTER, Completion.ofText(Vectors.render(wrong, item)));
            assertThat(bad.reward().local())
                    .as(item.id())
                    .isLessThan(good.reward().local());
            Transition<VerilogState> none = t.step(s, VerilogTask.TESTER, Completion.ofText("I cannot test this"));
            assertThat(none.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
            assertThat(none.reward().local()).isEqualTo(0.0);
        }
    }

    @Tag("heavy")
    @Test
    void theDesignerSeesTheTestersFailuresAndMayRevise() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        Problem p = t.problems(3).problems(Split.TRAIN, 0, 1).get(0);
        VerilogState s = t.initialState(p);
        VerilogItem item = s.item();
        Transition<VerilogState> first = t.step(
                s,
                VerilogTask.DESIGNER,
                Completion.ofText(VerilogPrompts.body(item.mutants().get(0))));
        assertThat(first.done()).isFalse();
        assertThat(first.success()).isFalse();
        VerilogOracle oracle = new VerilogOracle(List.of(item), false, t.judge(), 16);
        String bench = Vectors.render(oracle.vectors(item, item.reference()), item);
        Transition<VerilogState> tested = t.step(first.next(), VerilogTask.TESTER, Completion.ofText(bench));
        assertThat(tested.done()).isFalse();
        assertThat(tested.next().mismatches()).isNotEmpty();
        String prompt = t.prompt(tested.next(), VerilogTask.DESIGNER, 1, PromptStyle.COMPACT)
                .text();
        assertThat(prompt).contains("fail ").contains(" got ");
        assertThat(t.prompt(tested.next(), VerilogTask.DESIGNER, 1, PromptStyle.CHAT)
                        .text())
                .contains("Failures of the current design")
                .contains(item.header());
        Transition<VerilogState> revised = t.step(
                tested.next(), VerilogTask.DESIGNER, Completion.ofText("```verilog\n" + item.reference() + "```"));
        assertThat(revised.done()).isTrue();
        assertThat(revised.success()).isTrue();
        assertThat(revised.outcome()).isEqualTo(StepOutcome.SOLVED);
        assertThat(revised.reward().team()).isEqualTo(1.0);
        // a design that does not compile: no reward, the error shown next turn
        Transition<VerilogState> broken = t.step(s, VerilogTask.DESIGNER, Completion.ofText("assign = ;"));
        assertThat(broken.reward().local()).isEqualTo(0.0);
        assertThat(broken.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        assertThat(t.prompt(broken.next(), VerilogTask.DESIGNER, 1, PromptStyle.COMPACT)
                        .text())
                .contains("error ");
        // vectors that pass the design do not end the episode: the designer reads "pass N" and answers once more,
        // rewarded as any design (keeping a right design solves it, trading it for a wrong one does not)
        Transition<VerilogState> right =
                t.step(s, VerilogTask.DESIGNER, Completion.ofText(VerilogPrompts.body(item.reference())));
        Transition<VerilogState> passed = t.step(right.next(), VerilogTask.TESTER, Completion.ofText(bench));
        assertThat(passed.done()).isFalse();
        assertThat(passed.next().mismatches()).isEmpty();
        assertThat(t.prompt(passed.next(), VerilogTask.DESIGNER, 1, PromptStyle.COMPACT)
                        .text())
                .doesNotContain("fail ")
                .contains("\npass " + passed.next().tests().size() + "\n");
        Transition<VerilogState> kept =
                t.step(passed.next(), VerilogTask.DESIGNER, Completion.ofText(VerilogPrompts.body(item.reference())));
        assertThat(kept.done()).isTrue();
        assertThat(kept.outcome()).isEqualTo(StepOutcome.SOLVED);
        assertThat(kept.reward().local()).isEqualTo(1.0);
        Transition<VerilogState> traded = t.step(
                passed.next(),
                VerilogTask.DESIGNER,
                Completion.ofText(VerilogPrompts.body(item.mutants().get(0))));
        assertThat(traded.done()).isFalse(); // the vectors catch it: the tester answers again (or the turns end)
        assertThat(traded.success()).isFalse();
        assertThat(traded.reward()).isEqualTo(RewardParts.ZERO); // only an equivalent design is paid
        // a revision the simulator refuses scores 0 for its turn, but the team keeps the design before it
        Transition<VerilogState> miscopied =
                t.step(passed.next(), VerilogTask.DESIGNER, Completion.ofText("assign = ;"));
        assertThat(miscopied.reward()).isEqualTo(RewardParts.ZERO);
        assertThat(miscopied.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        assertThat(miscopied.done()).isFalse();
        assertThat(miscopied.success()).isTrue();
        assertThat(miscopied.summary()).contains("keeps its previous design");
        assertThat(t.prompt(miscopied.next(), VerilogTask.DESIGNER, 2, PromptStyle.COMPACT)
                        .text())
                .contains("error ")
                .contains("assign = ;");
        Transition<VerilogState> after = t.step(miscopied.next(), VerilogTask.TESTER, Completion.ofText(bench));
        assertThat(after.success()).isTrue();
        assertThat(after.reward().team()).isEqualTo(1.0);
        // and a wrong design that runs does replace it: the team's answer is the latest design that ran
        Transition<VerilogState> worse = t.step(
                miscopied.next(),
                VerilogTask.DESIGNER,
                Completion.ofText(VerilogPrompts.body(item.mutants().get(0))));
        assertThat(worse.success()).isFalse();
        // a first design that does not compile leaves no answer
        assertThat(broken.success()).isFalse();
        assertThat(broken.next().answerPass()).isZero();
    }

    @Tag("heavy")
    @Test
    void demonstrationsAreWhatEachRoleCanReadOrAnotherReadingWithASecondDesignWhateverTheVectorsSay() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        var rng = new java.util.SplittableRandom(5);
        int secondTurns = 0;
        int passedTurns = 0;
        int briefs = 0;
        int lowBriefs = 0;
        int edges = 0;
        for (Problem p : t.problems(6).problems(Split.TRAIN, 0, 24)) {
            VerilogItem item = t.initialState(p).item();
            List<org.pettingllms.core.task.Demonstrations.Demo> right = t.demonstrations(
                    p, PromptStyle.COMPACT, new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, 2), rng);
            // played on the task, the right demonstrations solve it: on the first design, kept when the vectors
            // pass it, or (a brief's table active low) on the revision
            VerilogState s = t.initialState(p);
            Transition<VerilogState> last = null;
            for (var demo : right) {
                assertThat(t.prompt(s, demo.role(), 0, PromptStyle.COMPACT).text())
                        .isEqualTo(demo.prompt().text());
                last = t.step(s, demo.role(), Completion.ofText(demo.answer()));
                s = last.next();
            }
            assertThat(last.success()).as(item.id()).isTrue();
            assertThat(last.done()).as(item.id()).isTrue();
            if (Circuits.edgeDetector(item)) {
                // an edge detector's first design is one of the three kinds whatever its words say; the right
                // vectors catch a wrong kind, and the revision takes the kind they show
                edges++;
                assertThat(right).hasSize(3);
                assertThat(edgeKinds(item)).contains(right.get(0).answer());
                assertThat(right.get(2).answer()).isEqualTo(VerilogPrompts.body(item.reference()));
            } else if (item.brief().isEmpty() || item.briefReading() == 0) {
                // a full specification, or a brief whose letter (active high) is right: the right vectors pass the
                // right design, and the designer, shown so, writes it again
                briefs += item.brief().isEmpty() ? 0 : 1;
                assertThat(right).hasSize(3);
                assertThat(right.get(0).answer()).isEqualTo(VerilogPrompts.body(item.reference()));
                assertThat(right.get(2).prompt().text())
                        .doesNotContain("fail ")
                        .contains("\npass ")
                        .endsWith("\n" + right.get(0).answer() + "\n>");
                assertThat(right.get(2).answer()).isEqualTo(right.get(0).answer());
            } else { // designer (the brief's table active high), tester, designer (the table inverted)
                lowBriefs++;
                assertThat(right).hasSize(3);
                assertThat(right.get(0).answer())
                        .isEqualTo(VerilogPrompts.body(item.mutants().get(2)))
                        .doesNotContain("~");
                // the tester copies the specification's rows in order (y is 0 there), then other rows (y is 1)
                List<String> specRows = tableRows(item.spec());
                List<String> lines = right.get(1).answer().lines().toList();
                for (int k = 0; k < lines.size(); k++) {
                    String row =
                            lines.get(k).replaceAll("[a-d]=([01])\\s*", "$1").replaceAll("\\s*->.*", "");
                    if (k < specRows.size()) {
                        assertThat(row).isEqualTo(specRows.get(k));
                        assertThat(lines.get(k)).endsWith("-> y=0");
                    } else {
                        assertThat(specRows).doesNotContain(row);
                        assertThat(lines.get(k)).endsWith("-> y=1");
                    }
                }
                assertThat(right.get(2).prompt().text())
                        .contains("fail ")
                        .endsWith("\n" + right.get(0).answer() + "\n>"); // the design last, before the cue
                // the revision is the first design inverted
                String first = right.get(0).answer();
                assertThat(right.get(2).answer())
                        .isEqualTo(VerilogPrompts.body(item.reference()))
                        .isEqualTo(
                                "assign y = ~(" + first.substring("assign y = ".length(), first.length() - 1) + ");");
            }
            List<org.pettingllms.core.task.Demonstrations.Demo> wrong = t.demonstrations(
                    p, PromptStyle.COMPACT, new org.pettingllms.core.task.Demonstrations.Settings(1, 0, false, 2), rng);
            List<String> readings = new ArrayList<>();
            readings.add(VerilogPrompts.body(item.reference()));
            item.mutants().forEach(m -> readings.add(VerilogPrompts.body(m)));
            if (!Circuits.edgeDetector(item)) {
                readings.remove(item.briefReading()); // noise 1: never what the role can read
            }
            assertThat(readings).contains(wrong.get(0).answer());
            // a second design whatever the tester's vectors said: with the failures where they caught the first,
            // else shown that they pass (and at noise 1 a design other than the one that passed)
            assertThat(wrong.size()).isGreaterThanOrEqualTo(3);
            if (wrong.get(2).prompt().text().contains("fail ")) {
                secondTurns++;
            } else {
                passedTurns++;
                assertThat(wrong.get(2).prompt().text()).contains("\npass ");
                assertThat(wrong.get(2).answer()).isNotEqualTo(wrong.get(0).answer());
            }
        }
        assertThat(secondTurns).isPositive();
        assertThat(passedTurns).isPositive();
        assertThat(briefs).isPositive();
        assertThat(lowBriefs).isPositive();
        assertThat(edges).isPositive();
    }

    @Tag("heavy")
    @Test
    void habitsAreWrittenInBothDesignsOfAClockedModuleAndTheSimulatorExposesThem() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        int clocked = 0;
        int[] places = new int[4]; // neither, falling edge only, active-low reset only, both
        for (Problem p : t.problems(6).problems(Split.TRAIN, 0, 40)) {
            VerilogItem item = t.initialState(p).item();
            var always = new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, 2, 1.0);
            List<org.pettingllms.core.task.Demonstrations.Demo> habits =
                    t.demonstrations(p, PromptStyle.COMPACT, always, new java.util.SplittableRandom(9));
            List<org.pettingllms.core.task.Demonstrations.Demo> plain = t.demonstrations(
                    p,
                    PromptStyle.COMPACT,
                    new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, 2),
                    new java.util.SplittableRandom(9));
            if (!item.sequential()) {
                assertThat(habits).as(item.id()).isEqualTo(plain); // no habit to show: the same demonstrations
                continue;
            }
            clocked++;
            // played on the task, every prompt is the task's own (the failures shown are what the simulator finds in
            // the habits' design), and the hidden bench fails both designs
            VerilogState s = t.initialState(p);
            int turn = 0;
            for (var demo : habits) {
                assertThat(t.prompt(s, demo.role(), turn, PromptStyle.COMPACT).text())
                        .as(item.id())
                        .isEqualTo(demo.prompt().text());
                Transition<VerilogState> step = t.step(s, demo.role(), Completion.ofText(demo.answer()));
                if (demo.role().equals(VerilogTask.DESIGNER)) {
                    assertThat(demo.answer()).contains("always @(negedge clk)").contains("if (!reset)");
                    assertThat(step.reward().local()).as(item.id()).isZero();
                    assertThat(step.success()).as(item.id()).isFalse();
                }
                s = step.next();
                turn += demo.role().equals(VerilogTask.TESTER) ? 1 : 0;
            }
            // each place drawn apart, per episode
            List<org.pettingllms.core.task.Demonstrations.Demo> half = t.demonstrations(
                    p,
                    PromptStyle.COMPACT,
                    new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, 2, 0.5),
                    new java.util.SplittableRandom(clocked));
            String first = half.get(0).answer();
            int k = (first.contains("negedge") ? 1 : 0) + (first.contains("!reset") ? 2 : 0);
            places[k]++;
            String second = half.get(2).answer(); // designer, tester, designer
            assertThat(half.get(2).role()).isEqualTo(VerilogTask.DESIGNER);
            assertThat(second.contains("negedge")).as(second).isEqualTo((k & 1) == 1);
            assertThat(second.contains("!reset")).as(second).isEqualTo((k & 2) == 2);
        }
        assertThat(clocked).isGreaterThanOrEqualTo(10);
        assertThat(java.util.Arrays.stream(places).min().orElseThrow())
                .as("fewest of neither, falling, active low, both")
                .isPositive();
    }

    @Test
    void kindsChooseTheGeneratedCircuitsAndKeepTheirSplits() {
        VerilogTasks provider = new VerilogTasks();
        java.util.function.Function<Map<String, Object>, VerilogTask> make =
                options -> provider.create(new org.pettingllms.core.config.RunConfig.TaskSpec(
                        "verilog", PromptStyle.COMPACT, 2, List.of(), options));
        VerilogTask edges = make.apply(Map.of("kinds", List.of("edge")));
        VerilogTask all = make.apply(Map.of());
        java.util.Set<String> allEdges = new java.util.HashSet<>();
        for (Problem p : all.problems(1).problems(Split.TRAIN, 0, 600)) {
            VerilogItem item = all.initialState(p).item();
            if (Circuits.edgeDetector(item)) {
                allEdges.add(item.spec());
            }
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Split split : List.of(Split.TRAIN, Split.VALIDATION, Split.TEST)) {
            for (Problem p : edges.problems(1).problems(split, 0, 100)) {
                VerilogItem item = edges.initialState(p).item();
                assertThat(Circuits.edgeDetector(item)).as(item.spec()).isTrue();
                // the content split still holds: a held-out edge detector's words are no training one's
                assertThat(ContentSplit.splitOf(item.spec() + "\n" + item.header()))
                        .isEqualTo(split);
                if (split != Split.TRAIN) {
                    assertThat(allEdges).doesNotContain(item.spec());
                }
                seen.add(item.spec());
            }
        }
        assertThat(seen).hasSizeGreaterThanOrEqualTo(40); // 54 wordings in all
        // every kind named: the same problems as no kinds at all
        VerilogTask every = make.apply(Map.of("kinds", List.of("table", "arithmetic", "counter", "shift", "edge")));
        for (Problem p : every.problems(1).problems(Split.VALIDATION, 0, 50)) {
            assertThat(every.initialState(p).item())
                    .isEqualTo(all.initialState(p).item());
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> make.apply(Map.of("kinds", List.of("fifo"))))
                .isInstanceOf(org.pettingllms.core.config.ConfigException.class)
                .hasMessageContaining("task.options.kinds")
                .hasMessageContaining("'fifo'")
                .hasMessageContaining("table, arithmetic, counter, shift, edge");
    }

    @Tag("heavy")
    @Test
    void everySplitHoldsEveryKindOfEdgeAndTheWarmUpDrawsTheKindWhateverTheWords() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        var problems = t.problems(1);
        List<Problem> trainEdges = new ArrayList<>();
        for (Split split : List.of(Split.TRAIN, Split.VALIDATION, Split.TEST)) {
            java.util.Set<String> kinds = new java.util.TreeSet<>();
            java.util.Set<String> shifts = new java.util.TreeSet<>();
            for (Problem p : problems.problems(split, 0, 600)) {
                VerilogItem item = t.initialState(p).item();
                if (Circuits.edgeDetector(item)) {
                    kinds.add(item.spec().replaceAll(".* becomes 1 if \\w+ (\\w+) .*", "$1"));
                    if (split == Split.TRAIN) {
                        trainEdges.add(p);
                    }
                } else if (item.spec().contains(" shifts ")) {
                    shifts.add(item.spec().contains("left") ? "left" : "right");
                    shifts.add("width " + item.outputs().get(0).width());
                }
            }
            // no kind is held out whole (with three wordings, training saw only "changes"), nor a shift's width
            assertThat(kinds).as(split.label()).containsExactly("changes", "falls", "rises");
            assertThat(shifts)
                    .as(split.label())
                    .containsExactlyInAnyOrder("left", "right", "width 3", "width 4", "width 5", "width 6");
        }
        // the warm-up's first design of an edge detector: each of the three kinds in about equal shares, whatever
        // the words say (noise 0)
        int[] drawn = new int[3];
        var rng = new java.util.SplittableRandom(3);
        for (Problem p : trainEdges.subList(0, 30)) {
            VerilogItem item = t.initialState(p).item();
            String first = t.demonstrations(
                            p,
                            PromptStyle.COMPACT,
                            new org.pettingllms.core.task.Demonstrations.Settings(0, 0, false, 1),
                            rng)
                    .get(0)
                    .answer();
            int kind = edgeKinds(item).indexOf(first);
            assertThat(kind).as(first).isNotNegative();
            drawn[kind]++;
        }
        assertThat(java.util.Arrays.stream(drawn).min().orElseThrow())
                .as("fewest of a kind")
                .isGreaterThanOrEqualTo(5);
    }

    @Tag("heavy")
    @Test
    void aTruthTablesDesignerReadsABriefWithoutYsLevelThatTheTestersSpecificationGives() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        int high = 0;
        int low = 0;
        for (Problem p : t.problems(8).problems(Split.TRAIN, 0, 60)) {
            VerilogState s = t.initialState(p);
            VerilogItem item = s.item();
            if (!item.spec().matches("y is [01] exactly when .*")) {
                assertThat(item.brief()).as(item.id()).isEmpty();
                assertThat(item.briefReading()).isZero();
                continue;
            }
            boolean activeLow = item.spec().startsWith("y is 0");
            int letter = activeLow ? 3 : 0;
            if (activeLow) {
                low++;
            } else {
                high++;
            }
            assertThat(item.briefReading()).as(item.id()).isEqualTo(letter);
            assertThat(item.briefAlternative()).isEqualTo(3 - letter);
            String designer =
                    t.prompt(s, VerilogTask.DESIGNER, 0, PromptStyle.COMPACT).text();
            String tester =
                    t.prompt(s, VerilogTask.TESTER, 0, PromptStyle.COMPACT).text();
            assertThat(designer)
                    .contains(item.brief())
                    .doesNotContain(item.spec())
                    .contains("not given here")
                    .doesNotContain("y is 0")
                    .doesNotContain("y is 1");
            assertThat(tester).contains(item.spec()).doesNotContain("not given here");
            assertThat(t.prompt(s, VerilogTask.DESIGNER, 0, PromptStyle.CHAT).text())
                    .contains(item.brief())
                    .doesNotContain(item.spec());
            // the brief lists the specification's rows: only the level is missing, so both levels read alike
            assertThat(tableRows(item.brief())).isEqualTo(tableRows(item.spec()));
            // a tester's six vectors (the configs' maxTesterTests) can check every row the specification lists
            assertThat(tableRows(item.spec())).hasSizeLessThanOrEqualTo(Circuits.MAX_ONES);
            // the brief's two designs: the reference, and the other level, wrong at every step of the hidden bench
            Transition<VerilogState> other = t.step(
                    s,
                    VerilogTask.DESIGNER,
                    Completion.ofText(VerilogPrompts.body(item.mutants().get(2))));
            assertThat(other.success()).isFalse();
            assertThat(other.reward().team()).isZero();
            Transition<VerilogState> reference =
                    t.step(s, VerilogTask.DESIGNER, Completion.ofText(VerilogPrompts.body(item.reference())));
            assertThat(reference.success()).isTrue();
            // read to the letter, the brief is the table active high
            String literal = VerilogPrompts.body(
                    letter == 0 ? item.reference() : item.mutants().get(2));
            assertThat(literal).startsWith("assign y = {").doesNotContain("~");
        }
        assertThat(high).isGreaterThan(3);
        assertThat(low).isGreaterThan(3);
    }

    @Tag("heavy")
    @Test
    void aDemonstratedRevisionTrustsTheDesignersDocumentAndTakesTheLevelMoreVectorsShow() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
        int briefs = 0;
        int full = 0;
        int edges = 0;
        for (Problem p : t.problems(9).problems(Split.TRAIN, 0, 48)) {
            VerilogItem item = t.initialState(p).item();
            List<List<String>> readings = t.judge().readings(item);
            List<BigInteger[]> hidden = Stimulus.hidden(item);
            List<Integer> all = new ArrayList<>();
            for (int i = 0; i < Math.min(16, hidden.size()); i++) {
                all.add(i);
            }
            if (item.brief().isEmpty()) {
                full++;
                // vectors with a wrong design's outputs: the revision is the reference all the same
                List<Integer> steps = VerilogOracle.steps(item, readings, 16, new java.util.SplittableRandom(1));
                var wrong = VerilogOracle.vectors(item, hidden, steps, readings.get(1));
                if (Circuits.edgeDetector(item)) {
                    // an edge detector's designer follows the vectors among the three kinds (it was never shown
                    // which word is which), and keeps its own kind where no other passes more
                    edges++;
                    assertThat(VerilogDemonstrations.revision(item, wrong, steps, readings, 0))
                            .isEqualTo(1);
                    var right = VerilogOracle.vectors(item, hidden, steps, readings.get(0));
                    assertThat(VerilogDemonstrations.revision(item, right, steps, readings, 2))
                            .isZero();
                    assertThat(VerilogDemonstrations.revision(item, List.of(), List.of(), readings, 2))
                            .isEqualTo(2);
                    continue;
                }
                assertThat(VerilogDemonstrations.revision(item, wrong, steps, readings, 1))
                        .isZero();
                continue;
            }
            briefs++;
            int letter = item.briefReading();
            assertThat(VerilogDemonstrations.revision(
                            item, VerilogOracle.vectors(item, hidden, all, readings.get(0)), all, readings, 3))
                    .as("the reference's vectors show its level")
                    .isZero();
            assertThat(VerilogDemonstrations.revision(
                            item, VerilogOracle.vectors(item, hidden, all, readings.get(3)), all, readings, 0))
                    .as("vectors of the other level")
                    .isEqualTo(3);
            // a tester that wrote one row wrong (the flipped-row design's vectors): the other rows show the
            // reference's level, one wrong row does not turn the design over
            List<Integer> flipped = new ArrayList<>();
            for (int i : all) {
                if (!readings.get(1).get(i).equals(readings.get(0).get(i))) {
                    flipped.add(i);
                }
            }
            assertThat(flipped).as(item.id()).hasSize(1);
            assertThat(VerilogDemonstrations.revision(
                            item, VerilogOracle.vectors(item, hidden, all, readings.get(1)), all, readings, 0))
                    .as("one wrong row does not turn the design over")
                    .isZero();
            assertThat(VerilogDemonstrations.revision(item, List.of(), List.of(), readings, 3 - letter))
                    .as("no vectors: the letter")
                    .isEqualTo(letter);
        }
        assertThat(briefs).isPositive();
        assertThat(full).isPositive();
        assertThat(edges).isPositive();
    }

    /** An edge detector's three kinds as the designer writes them: the reference, then its first two wrong designs. */
    private static List<String> edgeKinds(VerilogItem item) {
        return List.of(
                VerilogPrompts.body(item.reference()),
                VerilogPrompts.body(item.mutants().get(0)),
                VerilogPrompts.body(item.mutants().get(1)));
    }

    /** The rows a truth table's wording lists ("... (a, b, c) is 001, 100 or 111 ..."), in its order. */
    private static List<String> tableRows(String words) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\\b[01]{2,4}\\b").matcher(words);
        List<String> rows = new ArrayList<>();
        while (m.find()) {
            rows.add(m.group());
        }
        return rows;
    }

    @Test
    void theGeneratorIsDeterministicAndSplitsByContent() {
        VerilogTask t = task(List.of(VerilogTask.DESIGNER));
        Map<String, Split> seen = new HashMap<>();
        for (Split split : List.of(Split.TRAIN, Split.VALIDATION, Split.TEST)) {
            for (Problem p : t.problems(5).problems(split, 0, 80)) {
                VerilogItem item = t.initialState(p).item();
                assertThat(ContentSplit.splitOf(item.spec() + "\n" + item.header()))
                        .isEqualTo(split);
                Split before = seen.put(item.spec() + item.header(), split);
                assertThat(before == null || before == split).as(item.spec()).isTrue();
                assertThat(Circuits.item(p.seed())).isEqualTo(item);
            }
        }
    }

    @Test
    void vectorsParseAsATesterWritesThem() {
        VerilogItem item = Circuits.item(1);
        VerilogItem adder = new VerilogItem(
                "adder",
                "",
                List.of(Port.in("a", 4), Port.in("b", 4), Port.out("y", 5)),
                false,
                "",
                List.of(),
                "",
                "",
                0);
        List<Vectors.Vector> v = Vectors.parse(
                "a=3 b=5 -> y=8\nnonsense\na=4'b1111 -> y=0x14\nb=16 -> y=1\nc=1 -> y=1\na=1, b=1 -> y=2.\na=1 ->\n",
                adder,
                10);
        assertThat(v).hasSize(3);
        assertThat(v.get(1).inputs())
                .containsExactly(BigInteger.valueOf(15), BigInteger.valueOf(5)); // b kept from the line before
        assertThat(v.get(1).expected()).containsEntry(0, BigInteger.valueOf(20));
        assertThat(v.get(2).inputs()).containsExactly(BigInteger.ONE, BigInteger.ONE);
        assertThat(Vectors.parse("a=1 b=1 -> y=2\n".repeat(30), adder, 16)).hasSize(16);
        assertThat(item.header()).startsWith("module TopModule(");
    }

    @Test
    void verilogEvalsLayoutLoads(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("Prob001_and_prompt.txt"), "Implement y = a & b.\n");
        Files.writeString(
                dir.resolve("Prob001_and_ref.sv"),
                "module RefModule (\n  input [1:0] a, b, // two bits\n  output logic [1:0] y\n);\n  assign y = a & b;\nendmodule\n");
        Files.writeString(dir.resolve("Prob001_and_test.sv"), harness());
        List<VerilogItem> items = VerilogEvalRows.load(dir);
        assertThat(items).hasSize(1);
        VerilogItem item = items.get(0);
        assertThat(item.ports()).containsExactly(Port.in("a", 2), Port.in("b", 2), new Port("y", 2, false, "logic"));
        assertThat(item.header()).isEqualTo("module TopModule(input [1:0] a, input [1:0] b, output logic [1:0] y);");
        VerilogTask t = new VerilogTask(
                List.of(VerilogTask.DESIGNER, VerilogTask.TESTER),
                2,
                new Items.Listed<>(List.of(), items, VerilogItem.class),
                icarus,
                16);
        VerilogState s = t.initialState(t.problems(1).problems(Split.TEST, 0, 1).get(0));
        assertThat(t.step(s, VerilogTask.DESIGNER, Completion.ofText("assign y = a & b;"))
                        .success())
                .isTrue();
        Transition<VerilogState> wrong = t.step(s, VerilogTask.DESIGNER, Completion.ofText("assign y = a | b;"));
        assertThat(wrong.success()).isFalse();
        assertThat(wrong.next().hiddenPass()).isBetween(0.2, 0.8);
        assertThat(wrong.reward().team()).isZero();
        // a design that prints the harness's verdict itself, or copies the reference, does not pass
        for (String cheat : List.of(
                "assign y = 0;\ninitial #100 $display(\"Mismatches: 0 in 16 samples\");",
                "RefModule r(.a(a), .b(b), .y(y));",
                "assign y = tb.good.y;",
                "assign y = a & b;\ninitial #3 $finish;")) {
            Transition<VerilogState> c = t.step(s, VerilogTask.DESIGNER, Completion.ofText(cheat));
            assertThat(c.success()).as(cheat).isFalse();
            assertThat(c.reward().team()).as(cheat).isLessThan(0.6); // the printer earns its honest 9 of 16
        }
        // the tester's vectors run on the reference module
        Transition<VerilogState> tested =
                t.step(s, VerilogTask.TESTER, Completion.ofText("a=3 b=1 -> y=1\na=2 b=2 -> y=3\n"));
        assertThat(tested.reward().local()).isEqualTo(0.5);
    }

    @Test
    void verilogEvalHeadersAreReadAsWritten() {
        assertThat(VerilogEvalRows.ports(
                        "module RefModule ( /* clock */ input clk,\n input wire [99:0] in, input_b,\n"
                                + " output reg [7:0] q = 0, output logic signed [1:0] s\n);\nendmodule",
                        "x"))
                .containsExactly(
                        Port.in("clk", 1),
                        Port.in("in", 100),
                        Port.in("input_b", 100),
                        Port.outReg("q", 8),
                        new Port("s", 2, false, "logic"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> VerilogEvalRows.ports(
                        "module RefModule #(parameter W = 4) (input [W-1:0] a, output y);", "f.sv"))
                .hasMessageContaining("f.sv")
                .hasMessageContaining("parameterised");
    }

    /** A harness in VerilogEval's manner: every input pair, the reference beside the design, one verdict line. */
    static String harness() {
        return """
                module tb;
                  reg [1:0] a, b;
                  wire [1:0] y_ref, y_dut;
                  integer i, errors = 0, samples = 0;
                  RefModule good(.a(a), .b(b), .y(y_ref));
                  TopModule dut(.a(a), .b(b), .y(y_dut));
                  initial begin
                    for (i = 0; i < 16; i = i + 1) begin
                      {a, b} = i; #1;
                      samples = samples + 1;
                      if (y_ref !== y_dut) errors = errors + 1;
                    end
                    $display("Mismatches: %1d in %1d samples", errors, samples);
                    $finish;
                  end
                endmodule
                """;
    }

    abstract class CircuitContract extends TaskContract<VerilogState> {
        abstract List<String> roles();

        @Override
        protected VerilogTask task() {
            return VerilogTaskTest.task(roles());
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(3).problems(Split.TEST, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            List<VerilogItem> items = items(task(), problems());
            return halfRight(task().oracle(items, false), task().oracle(items, true));
        }
    }

    @Tag("heavy")
    @Nested
    class TeamContract extends CircuitContract {
        @Override
        List<String> roles() {
            return List.of(VerilogTask.DESIGNER, VerilogTask.TESTER);
        }
    }

    @Tag("heavy")
    @Nested
    class SingleAgentContract extends CircuitContract {
        @Override
        List<String> roles() {
            return List.of(VerilogTask.DESIGNER);
        }
    }
}

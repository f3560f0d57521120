package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.math.WordProblems.Kind;
import org.pettingllms.envs.math.WordProblems.WordProblem;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;
import org.pettingllms.testkit.TaskContract;

/**
 * The generated word problems of math-v1: splits, the programs (run in the sandbox) against their Java mirrors,
 * the demonstrations' imperfections at their stated rates, and the task contract on generated problems.
 */
class WordProblemsTest {
    static Sandbox box;

    @BeforeAll
    static void setUp() {
        box = Sandbox.create(SandboxLimits.DEFAULT, 2);
    }

    static MathTask task(List<String> roles) {
        return new MathTask(
                roles,
                2,
                new Items.Generated<>(WordProblems.NAME, s -> WordProblems.of(s).item()),
                box,
                Duration.ofSeconds(10));
    }

    static List<Problem> problems(MathTask t, Split split, int n) {
        return t.problems(1).problems(split, 0, n);
    }

    @Test
    void sameSeedSameProblemAndTheSplitsShareNoQuestion() {
        MathTask t = task(List.of("tool", "reasoner"));
        Set<String> train = new HashSet<>();
        for (Problem p : problems(t, Split.TRAIN, 3000)) {
            train.add(WordProblems.of(p.seed()).item().question());
            assertThat(WordProblems.of(p.seed())).isEqualTo(WordProblems.of(p.seed()));
        }
        assertThat(train).as("questions differ from seed to seed").hasSizeGreaterThan(2990);
        for (Problem p : problems(t, Split.TEST, 3000)) {
            assertThat(train).doesNotContain(WordProblems.of(p.seed()).item().question());
        }
    }

    @Test
    void everyWordingAndTheMovedStepAppearAndAnswersArePositive() {
        Map<Kind, Integer> seen = new EnumMap<>(Kind.class);
        int moved = 0;
        for (long s = 0; s < 2000; s++) {
            WordProblem p = WordProblems.of(s);
            p.steps().forEach(st -> seen.merge(st.kind(), 1, Integer::sum));
            moved += p.moved() ? 1 : 0;
            assertThat(p.answer()).isPositive();
            assertThat(p.item().answer()).isEqualTo(Long.toString(p.answer()));
            assertThat(p.item().question()).contains(Long.toString(p.start()), "How many");
        }
        assertThat(seen).hasSize(Kind.values().length);
        seen.values().forEach(n -> assertThat(n).isGreaterThan(300));
        assertThat(moved).isBetween(500, 700); // MOVED = 0.3 of 2000
        WordProblem p = firstMoved();
        assertThat(p.item().question()).contains("Before all that, ").endsWith(" have now?");
        assertThat(p.item().question().indexOf(p.steps().get(0).words()))
                .as("the first step is written last")
                .isGreaterThan(p.item().question().indexOf(p.steps().get(1).words()));
    }

    static WordProblem firstMoved() {
        for (long s = 0; ; s++) {
            if (WordProblems.of(s).moved()) {
                return WordProblems.of(s);
            }
        }
    }

    @Tag("heavy")
    @Test
    void programsPrintWhatTheirJavaMirrorsSayAndOnlyTheRightReadingIsRight() {
        SplittableRandom rng = new SplittableRandom(3);
        int checked = 0;
        int misreadRight = 0;
        int misreads = 0;
        for (long s = 0; s < 40; s++) {
            WordProblem p = WordProblems.of(s);
            boolean[] none = new boolean[p.steps().size()];
            assertThat(run(WordProblems.program(p, none, false))).isEqualTo(Long.toString(p.answer()));
            for (int v = 0; v < 3; v++) {
                boolean[] misread = new boolean[none.length];
                for (int i = 0; i < misread.length; i++) {
                    misread[i] = rng.nextBoolean();
                }
                boolean written = rng.nextBoolean();
                long mirror = WordProblems.output(p, misread, written);
                assertThat(run(WordProblems.program(p, misread, written)))
                        .as("seed %d", s)
                        .isEqualTo(Long.toString(mirror));
                checked++;
                boolean anyMisread = written && p.moved();
                for (int i = 0; i < misread.length; i++) {
                    anyMisread |= misread[i] && p.steps().get(i).kind().hard;
                }
                if (anyMisread) {
                    misreads++;
                    misreadRight += mirror == p.answer() ? 1 : 0;
                }
            }
        }
        assertThat(checked).isEqualTo(120);
        assertThat(misreads).isGreaterThan(60);
        assertThat(misreadRight).as("a misreading that still gives the answer").isLessThanOrEqualTo(misreads / 20);
    }

    private static String run(String program) {
        Execution e = box.run(program, "", box.limits());
        assertThat(e.ok()).as(e.summary()).isTrue();
        return e.stdout().strip();
    }

    @Test
    void theToolsDemonstrationsAreMostlyWrongAndTheReasonerAdoptsAtTheRateAsked() {
        MathTask t = task(List.of("tool", "reasoner"));
        Demonstrations.Settings settings = new Demonstrations.Settings(0.3, 0.5);
        SplittableRandom rng = new SplittableRandom(5);
        int right = 0;
        int adopted = 0;
        int n = 600;
        for (Problem p : problems(t, Split.TRAIN, n)) {
            List<Demo> demos = t.demonstrations(p, PromptStyle.COMPACT, settings, rng);
            assertThat(demos).extracting(Demo::role).containsExactly("tool", "reasoner");
            WordProblem wp = WordProblems.of(p.seed());
            assertThat(demos.get(0).prompt().text())
                    .isEqualTo("math-v1 tool\n" + wp.item().question() + "\n>");
            Matcher printed = Pattern.compile("\ntool: (-?\\d+)\n>$")
                    .matcher(demos.get(1).prompt().text());
            assertThat(printed.find()).isTrue();
            right += printed.group(1).equals(wp.item().answer()) ? 1 : 0;
            adopted += demos.get(1).answer().equals("\\boxed{" + printed.group(1) + "}") ? 1 : 0;
        }
        assertThat((double) right / n).as("right programs").isBetween(0.10, 0.35);
        assertThat((double) adopted / n).as("adopted").isBetween(0.45, 0.58);
    }

    @Test
    void theReasonersWorkedSolutionIsTrueLineByLineWithoutNoiseAndSlipsAtTheNoiseRate() {
        Pattern eq = Pattern.compile("(-?\\d+)([-+*/])(\\d+)=(-?\\d+)");
        SplittableRandom rng = new SplittableRandom(9);
        for (long s = 0; s < 300; s++) {
            WordProblem p = WordProblems.of(s);
            String w = WordProblemDemonstrations.workedOut(p, 0, rng);
            assertThat(w).endsWith("\\boxed{" + p.answer() + "}");
            for (String line : w.lines().toList().subList(0, (int) w.lines().count() - 1)) {
                Matcher m = eq.matcher(line);
                assertThat(m.matches()).as(line).isTrue();
                long a = Long.parseLong(m.group(1));
                long b = Long.parseLong(m.group(3));
                long r = switch (m.group(2)) {
                    case "+" -> a + b;
                    case "-" -> a - b;
                    case "*" -> a * b;
                    default -> a / b;
                };
                assertThat(Long.parseLong(m.group(4))).as(line).isEqualTo(r);
            }
        }
        int wrong = 0;
        for (long s = 0; s < 1000; s++) {
            WordProblem p = WordProblems.of(s);
            wrong += WordProblemDemonstrations.workedOut(p, 0.3, rng).endsWith("{" + p.answer() + "}") ? 0 : 1;
        }
        assertThat(wrong).isBetween(240, 360); // a slip changes the result (floor division can hide a few)
    }

    @Test
    void theSingleAgentDemonstratesItsOwnSolutionOnItsOwnPrompt() {
        MathTask alone = task(List.of("reasoner"));
        Problem p = problems(alone, Split.TRAIN, 1).get(0);
        List<Demo> demos = alone.demonstrations(
                p, PromptStyle.COMPACT, new Demonstrations.Settings(0, 0.5), new SplittableRandom(1));
        assertThat(demos).hasSize(1);
        assertThat(demos.get(0).prompt().text())
                .startsWith("math-v1 reasoner\n")
                .doesNotContain("tool: ");
        assertThat(demos.get(0).answer())
                .endsWith("\\boxed{" + WordProblems.of(p.seed()).answer() + "}");
    }

    @Test
    void compactToolAnswersRunWithoutAFenceAndProseIsUnparseable() {
        MathTask t = task(List.of("tool", "reasoner"));
        Problem p = problems(t, Split.TEST, 1).get(0);
        WordProblem wp = WordProblems.of(p.seed());
        MathState s = t.initialState(p);
        String program = WordProblems.program(wp, new boolean[3], false);
        Transition<MathState> right = t.step(s, "tool", Completion.ofText(program));
        assertThat(right.reward().local()).isEqualTo(1);
        assertThat(t.prompt(right.next(), "reasoner", 0, PromptStyle.COMPACT).text())
                .endsWith("\ntool: " + wp.answer() + "\n>");
        assertThat(t.step(s, "tool", Completion.ofText("```python\n" + program + "```"))
                        .reward()
                        .local())
                .isEqualTo(1);
        Transition<MathState> prose = t.step(s, "tool", Completion.ofText("the answer is " + wp.answer()));
        assertThat(prose.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        assertThat(prose.reward().local()).isEqualTo(-1);
        Transition<MathState> wrong = t.step(right.next(), "reasoner", Completion.ofText("\\boxed{1}"));
        assertThat(wrong.done()).isFalse();
        assertThat(t.prompt(wrong.next(), "tool", 1, PromptStyle.COMPACT).text())
                .endsWith("\ntool: " + wp.answer() + "\nreasoner: 1\n>");
    }

    @Test
    void theOracleTeamSolvesGeneratedProblemsAndTheWrongTeamNone() {
        MathTask t = task(List.of("tool", "reasoner"));
        List<Problem> test = problems(t, Split.TEST, 20);
        List<MathItem> items =
                test.stream().map(p -> WordProblems.of(p.seed()).item()).toList();
        assertThat(MathTaskTest.evaluate(t, new MathOracle(items, false), test)).isEqualTo(1.0);
        assertThat(MathTaskTest.evaluate(t, new MathOracle(items, true), test)).isEqualTo(0.0);
    }

    @Test
    void configsNameTheGeneratorAndCannotMixItWithFiles() {
        RunConfig.TaskSpec ok =
                new RunConfig.TaskSpec("math", PromptStyle.COMPACT, 2, List.of(), Map.of("generator", "arithmetic"));
        assertThat(Tasks.create(ok).problems(1).problems(Split.TEST, 0, 3)).hasSize(3);
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "math", PromptStyle.COMPACT, 2, List.of(), Map.of("generator", "algebra"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.generator")
                .hasMessageContaining("arithmetic");
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "math",
                        PromptStyle.COMPACT,
                        2,
                        List.of(),
                        Map.of("generator", "arithmetic", "test", "x.jsonl"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("must be empty");
    }

    @Tag("heavy")
    @Nested
    class GeneratedTeamContract extends TaskContract<MathState> {
        @Override
        protected MathTask task() {
            return WordProblemsTest.task(List.of("tool", "reasoner"));
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(1).problems(Split.TRAIN, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            List<MathItem> items = new ArrayList<>();
            problems().forEach(p -> items.add(WordProblems.of(p.seed()).item()));
            return halfRight(new MathOracle(items, false), new MathOracle(items, true));
        }
    }
}

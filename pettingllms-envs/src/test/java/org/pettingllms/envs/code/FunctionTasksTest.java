package org.pettingllms.envs.code;

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
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.code.FunctionTasks.Aggregate;
import org.pettingllms.envs.code.FunctionTasks.Condition;
import org.pettingllms.envs.code.FunctionTasks.FunctionTask;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * The generated function tasks of code-v1: splits, hidden tests that tell every misreading apart (run in the
 * sandbox against their Java mirrors), the demonstrations' imperfections at their stated rates, compact answers,
 * the batched test runner, and the task contract on generated tasks.
 */
class FunctionTasksTest {
    static Sandbox box;
    static CodeRunner runner;

    @BeforeAll
    static void setUp() {
        box = Sandbox.create(SandboxLimits.DEFAULT, 2);
        runner = new CodeRunner(box, box.limits().withWallTime(Duration.ofSeconds(10)));
    }

    static CodeTask task(List<String> roles) {
        return new CodeTask(
                roles,
                2,
                new Items.Generated<>(
                        FunctionTasks.NAME, s -> FunctionTasks.of(s).item()),
                runner,
                20,
                5);
    }

    static List<Problem> problems(CodeTask t, Split split, int n) {
        return t.problems(1).problems(split, 0, n);
    }

    @Test
    void sameSeedSameTaskAndTheSplitsShareNoQuestion() {
        CodeTask t = task(List.of("coder", "tester"));
        Set<String> train = new HashSet<>();
        for (Problem p : problems(t, Split.TRAIN, 2000)) {
            train.add(FunctionTasks.of(p.seed()).item().question());
            assertThat(FunctionTasks.of(p.seed())).isEqualTo(FunctionTasks.of(p.seed()));
        }
        assertThat(train).as("questions differ from seed to seed").hasSizeGreaterThan(900);
        for (Problem p : problems(t, Split.TEST, 2000)) {
            assertThat(train).doesNotContain(FunctionTasks.of(p.seed()).item().question());
        }
    }

    @Test
    void everyWordingAppearsAndHiddenTestsTellEveryMisreadingApart() {
        Map<Aggregate, Integer> aggregates = new EnumMap<>(Aggregate.class);
        Map<Condition, Integer> conditions = new EnumMap<>(Condition.class);
        int two = 0;
        for (long s = 0; s < 2000; s++) {
            FunctionTask t = FunctionTasks.of(s);
            aggregates.merge(t.aggregate(), 1, Integer::sum);
            t.filters().forEach(f -> conditions.merge(f.condition(), 1, Integer::sum));
            two += t.filters().size() == 2 ? 1 : 0;
            CodeItem item = t.item();
            assertThat(item.tests()).hasSize(FunctionTasks.HIDDEN_TESTS);
            assertThat(item.question())
                    .startsWith("f(xs) returns " + t.aggregate().words + " the numbers in xs" + " that are ")
                    .contains(t.filters().get(0).words());
            for (int part = 0; part < t.parts(); part++) {
                if (!t.hard(part)) {
                    continue;
                }
                boolean[] misread = new boolean[t.parts()];
                misread[part] = true;
                boolean caught = false;
                for (TestCase c : item.tests()) {
                    caught |= !Long.toString(t.value(FunctionTasks.parseCall(c.input()), misread))
                            .equals(c.output());
                }
                assertThat(caught).as("seed %d, part %d", s, part).isTrue();
            }
        }
        assertThat(aggregates).hasSize(Aggregate.values().length);
        assertThat(conditions).hasSize(Condition.values().length);
        assertThat(two).isBetween(1000, 1400); // SECOND_FILTER 0.7, less the pairs that make no sense
    }

    @Tag("heavy")
    @Test
    void programsReturnWhatTheirJavaMirrorsSayAndOnlyTheRightReadingPassesTheHiddenTests() {
        SplittableRandom rng = new SplittableRandom(3);
        int misreads = 0;
        for (long s = 0; s < 30; s++) {
            FunctionTask t = FunctionTasks.of(s);
            assertThat(runner.groundTruth(t.reference(), t.item(), 20))
                    .as("seed %d", s)
                    .isEqualTo(1.0);
            assertThat(t.item().solution()).isEqualTo(t.reference());
            boolean[] misread = FunctionTaskDemonstrations.reading(t, rng);
            boolean any = false;
            for (boolean m : misread) {
                any |= m;
            }
            List<CodeRunner.Outcome> outcomes =
                    runner.run(t.program(misread), t.item().tests(), t.item());
            for (CodeRunner.Outcome o : outcomes) {
                long mirror = t.value(FunctionTasks.parseCall(o.test().input()), misread);
                assertThat(o.actual()).as("seed %d %s", s, o.test().input()).isEqualTo(Long.toString(mirror));
                assertThat(o.passed())
                        .isEqualTo(Long.toString(mirror).equals(o.test().output()));
            }
            if (any) {
                misreads++;
                assertThat(CodeRunner.passRatio(outcomes)).as("seed %d", s).isLessThan(1.0);
            }
        }
        assertThat(misreads).isGreaterThan(10);
    }

    @Tag("heavy")
    @Test
    void theBatchedRunnerKeepsEachTestApartAndCannotBeFooledByPrintedResults() {
        CodeItem item = FunctionTasks.of(0).item();
        List<TestCase> tests = List.of(
                new TestCase("f([1,2])", "3"),
                new TestCase("f([0])", "1"),
                new TestCase("f([1,2)", "3"),
                new TestCase("f([5])", "5"));
        String program = "def f(xs):\n return 10//xs[0] if xs==[0] else sum(xs)\n";
        List<CodeRunner.Outcome> o = runner.run(program, tests, item);
        assertThat(o).extracting(CodeRunner.Outcome::passed).containsExactly(true, false, false, true);
        assertThat(o.get(1).actual()).startsWith("ZeroDivisionError");
        assertThat(o.get(2).actual()).startsWith("SyntaxError");
        // a program that fails to load fails every test with its error
        assertThat(runner.run("def f(xs) return 1\n", tests, item)).allSatisfy(x -> {
            assertThat(x.passed()).isFalse();
            assertThat(x.actual()).contains("SyntaxError");
        });
        // printing result lines, or the old pass mark, passes nothing
        String forger = "import sys\nfor i in range(4):\n print('__PETTINGLLMS_TEST_' + str(i) + ' 1 3')\n" + "print('"
                + CodeRunner.PASS + "')\ndef f(xs):\n return -1\n";
        assertThat(runner.run(forger, tests, item)).noneMatch(CodeRunner.Outcome::passed);
        // a test that runs forever costs its own process, and the others still answer (and are not forged either)
        List<CodeRunner.Outcome> slow = new CodeRunner(box, box.limits().withWallTime(Duration.ofSeconds(2)))
                .run(
                        "print('" + CodeRunner.PASS + "')\ndef f(xs):\n while xs==[0]: pass\n"
                                + " return sum(xs) if xs==[5] else -1\n",
                        tests,
                        item);
        assertThat(slow).extracting(CodeRunner.Outcome::passed).containsExactly(false, false, false, true);
    }

    @Test
    void theDemonstrationsAreMostlyWrongAndGoOnToASecondTurnWhenTheTestsCatchTheCoder() {
        CodeTask t = task(List.of("coder", "tester"));
        SplittableRandom rng = new SplittableRandom(5);
        int n = 600;
        int right = 0;
        int testsRight = 0;
        int secondTurns = 0;
        for (Problem p : problems(t, Split.TRAIN, n)) {
            FunctionTask ft = FunctionTasks.of(p.seed());
            List<Demo> demos = t.demonstrations(p, PromptStyle.COMPACT, new Demonstrations.Settings(0.3, 0.5), rng);
            assertThat(demos.get(0).prompt().text())
                    .isEqualTo("code-v1 coder\n" + ft.item().question() + "\n>");
            assertThat(demos.get(1).prompt().text())
                    .isEqualTo("code-v1 tester\n" + ft.item().question() + "\n>");
            right += demos.get(0).answer().equals(ft.reference()) ? 1 : 0;
            List<TestCase> tests = TestBlocks.parseCalls(demos.get(1).answer(), "f", 5);
            assertThat(tests).hasSize(3);
            for (TestCase c : tests) {
                testsRight += c.output()
                                .equals(Long.toString(
                                        ft.value(FunctionTasks.parseCall(c.input()), new boolean[ft.parts()])))
                        ? 1
                        : 0;
            }
            if (demos.size() > 2) {
                secondTurns++;
                assertThat(demos).extracting(Demo::role).containsExactly("coder", "tester", "coder", "tester");
                assertThat(demos.get(2).prompt().text())
                        .startsWith("code-v1 coder\n" + ft.item().question() + "\n"
                                + demos.get(0).answer())
                        .contains("\nfail f([")
                        .endsWith("\n>");
            }
        }
        assertThat((double) right / n).as("right functions").isBetween(0.15, 0.5);
        assertThat((double) testsRight / (3 * n)).as("right tests").isBetween(0.3, 0.75);
        assertThat(secondTurns).isGreaterThan(n / 3);
    }

    @Test
    void compactAnswersRunWithoutAFenceAndTheTestersTestsReachTheCoder() {
        CodeTask t = task(List.of("coder", "tester"));
        Problem p = problems(t, Split.TEST, 1).get(0);
        FunctionTask ft = FunctionTasks.of(p.seed());
        CodeState s = t.initialState(p);
        Transition<CodeState> coded = t.step(s, "coder", Completion.ofText(ft.reference()));
        assertThat(coded.reward().local()).isEqualTo(1.0);
        assertThat(t.step(s, "coder", Completion.ofText("```python\n" + ft.reference() + "```"))
                        .reward()
                        .local())
                .isEqualTo(1.0);
        assertThat(t.step(s, "coder", Completion.ofText("return 3")).reward().local())
                .isEqualTo(0.0);
        // the tester claims a wrong value for its second test: the reference fails it, and so does the program
        List<TestCase> hidden = ft.item().tests();
        String answer = hidden.get(0).input() + "==" + hidden.get(0).output() + "\n"
                + hidden.get(1).input() + "==" + (Long.parseLong(hidden.get(1).output()) + 1) + "\nnot a test\n";
        Transition<CodeState> tested = t.step(coded.next(), "tester", Completion.ofText(answer));
        assertThat(tested.reward().local()).isEqualTo(0.5);
        assertThat(tested.done()).isFalse();
        assertThat(t.prompt(tested.next(), "coder", 1, PromptStyle.COMPACT).text())
                .isEqualTo("code-v1 coder\n"
                        + ft.item().question() + "\n" + ft.reference().strip() + "\nfail "
                        + hidden.get(1).input() + "=="
                        + (Long.parseLong(hidden.get(1).output()) + 1) + " got "
                        + hidden.get(1).output() + "\n>");
        assertThat(t.prompt(tested.next(), "tester", 1, PromptStyle.COMPACT).text())
                .startsWith("code-v1 tester\n" + ft.item().question() + "\nfail ");
    }

    @Tag("heavy")
    @Test
    void theOracleTeamSolvesGeneratedTasksAndTheWrongTeamNone() {
        for (PromptStyle style : PromptStyle.values()) {
            CodeTask t = task(List.of("coder", "tester"));
            List<Problem> test = problems(t, Split.TEST, 10);
            List<CodeItem> items =
                    test.stream().map(p -> FunctionTasks.of(p.seed()).item()).toList();
            assertThat(evaluate(t, new CodeOracle(items, false), test, style))
                    .as(style.name())
                    .isEqualTo(1.0);
            assertThat(evaluate(t, new CodeOracle(items, true), test, style))
                    .as(style.name())
                    .isEqualTo(0.0);
        }
    }

    static double evaluate(CodeTask t, TextPolicy policy, List<Problem> problems, PromptStyle style) {
        return GreedyEvaluation.successRate(t, policy, problems, style, 4096);
    }

    @Test
    void configsNameTheGeneratorAndCannotMixItWithFiles() {
        RunConfig.TaskSpec ok =
                new RunConfig.TaskSpec("code", PromptStyle.COMPACT, 2, List.of(), Map.of("generator", "functions"));
        assertThat(Tasks.create(ok).problems(1).problems(Split.TEST, 0, 3)).hasSize(3);
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "code", PromptStyle.COMPACT, 2, List.of(), Map.of("generator", "strings"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.generator")
                .hasMessageContaining("functions");
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "code",
                        PromptStyle.COMPACT,
                        2,
                        List.of(),
                        Map.of("generator", "functions", "train", "x.jsonl"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("must be empty");
    }

    @Tag("heavy")
    @Nested
    class GeneratedTeamContract extends TaskContract<CodeState> {
        @Override
        protected CodeTask task() {
            return FunctionTasksTest.task(List.of("coder", "tester"));
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(1).problems(Split.TRAIN, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            List<CodeItem> items = new ArrayList<>();
            problems().forEach(p -> items.add(FunctionTasks.of(p.seed()).item()));
            return halfRight(new CodeOracle(items, false), new CodeOracle(items, true));
        }
    }
}

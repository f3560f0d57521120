package org.pettingllms.envs.code;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.sandbox.CodeBlocks;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.testkit.TaskContract;

/** code-v1: rewards, mismatch history, termination, the tester's reference reward, and HumanEval via the harness. */
class CodeTaskTest {
    static CodeRunner runner;
    static List<CodeItem> humanEval;

    static final CodeItem SUM = new CodeItem(
            "sum",
            "Read two integers and print their sum.",
            List.of(new TestCase("1 2\n", "3\n"), new TestCase("10 -4\n", "6\n"), new TestCase("0 0\n", "0\n")),
            "a, b = map(int, input().split())\nprint(a + b)\n",
            null);

    @BeforeAll
    static void setUp() {
        Sandbox box = Sandbox.create(SandboxLimits.DEFAULT, 2);
        runner = new CodeRunner(box, box.limits().withWallTime(Duration.ofSeconds(5)));
        humanEval = CodeRows.load(SharedFiles.shared().resolve("datasets/code/humaneval.jsonl"));
    }

    static CodeTask task(List<String> roles, List<CodeItem> test, int turns) {
        return new CodeTask(roles, turns, List.of(), test, runner, 20, 5);
    }

    static CodeState start(CodeTask t) {
        return t.initialState(t.problems(1).problems(Split.TEST, 0, 1).get(0));
    }

    static Completion code(String program) {
        return Completion.ofText("Here it is:\n" + CodeBlocks.fence(program));
    }

    @Test
    void coderRewardIsTheGroundTruthPassRatioWithWhitespaceNormalisedOutput() {
        CodeTask t = task(List.of("coder", "tester"), List.of(SUM), 5);
        Transition<CodeState> right =
                t.step(start(t), "coder", code("a, b = map(int, input().split())\nprint(' ', a + b, '  ')"));
        assertThat(right.reward().local()).isEqualTo(1.0);
        assertThat(right.reward().team()).isEqualTo(1.0);
        assertThat(right.success()).isTrue();
        Transition<CodeState> partly =
                t.step(start(t), "coder", code("a, b = map(int, input().split())\nprint(abs(a) + abs(b))"));
        assertThat(partly.reward().local()).isCloseTo(2.0 / 3, Offset.offset(1e-9));
        assertThat(partly.success()).isFalse();
        assertThat(t.step(start(t), "coder", Completion.ofText("no code")).outcome())
                .isEqualTo(StepOutcome.UNPARSEABLE);
    }

    @Test
    void testerEarnsTheReferencePassRatioOfItsTests() { // reference defect 6: this was always 0
        CodeTask t = task(List.of("coder", "tester"), List.of(SUM), 5);
        String good = TestBlocks.format(List.of(new TestCase("2 2", "4"), new TestCase("5 5", "10")));
        String half = TestBlocks.format(List.of(new TestCase("2 2", "4"), new TestCase("5 5", "11")));
        assertThat(t.step(start(t), "tester", Completion.ofText(good)).reward().local())
                .isEqualTo(1.0);
        assertThat(t.step(start(t), "tester", Completion.ofText(half)).reward().local())
                .isEqualTo(0.5);
        assertThat(t.step(start(t), "tester", Completion.ofText("tests: 2 2 -> 4"))
                        .outcome())
                .isEqualTo(StepOutcome.UNPARSEABLE);
    }

    @Test
    void mismatchesGoIntoBothPromptsAndTheEpisodeEndsWhenTheTesterIsSatisfied() {
        CodeTask t = task(List.of("coder", "tester"), List.of(SUM), 5);
        CodeState afterCoder = t.step(start(t), "coder", code("a, b = map(int, input().split())\nprint(a * b)"))
                .next();
        Transition<CodeState> tests = t.step(
                afterCoder,
                "tester",
                Completion.ofText(TestBlocks.format(List.of(new TestCase("2 2", "4"), new TestCase("2 3", "5")))));
        assertThat(tests.done()).isFalse();
        assertThat(tests.next().mismatches()).hasSize(1);
        for (String role : List.of("coder", "tester")) {
            assertThat(t.prompt(tests.next(), role, 1, PromptStyle.CHAT).text())
                    .contains("Mismatches", "input: 2 3", "expected: 5", "actual: 6");
        }
        Transition<CodeState> fixed =
                t.step(tests.next(), "coder", code("a, b = map(int, input().split())\nprint(a + b)"));
        assertThat(fixed.done()).isTrue();
        assertThat(fixed.success()).isTrue();
        assertThat(fixed.outcome()).isEqualTo(StepOutcome.SOLVED);
    }

    @Tag("heavy")
    @Test
    void allHumanEvalCanonicalSolutionsPassThroughTheSandboxAndWrongOnesFail() {
        assertThat(humanEval).hasSize(164);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Double>> runs = humanEval.stream()
                    .map(item -> pool.submit(() -> runner.groundTruth(item.solution(), item, 20)))
                    .toList();
            long passed = runs.stream()
                    .filter(f -> {
                        try {
                            return f.get() == 1.0;
                        } catch (Exception e) {
                            throw new AssertionError(e);
                        }
                    })
                    .count();
            assertThat(passed).isEqualTo(164);
        }
        for (CodeItem item : humanEval.subList(0, 10)) {
            String wrong = "def " + item.functional().entryPoint() + "(*args, **kwargs):\n    return None\n";
            assertThat(runner.groundTruth(wrong, item, 20)).isZero();
        }
    }

    @Test
    void functionTestsCompareValues() {
        CodeItem first = humanEval.get(0);
        CodeTask t = task(List.of("coder", "tester"), List.of(first), 5);
        String tests = TestBlocks.format(CodeOracle.tests(first));
        Transition<CodeState> tr = t.step(start(t), "tester", Completion.ofText(tests));
        assertThat(CodeOracle.tests(first)).isNotEmpty();
        assertThat(tr.reward().local()).isEqualTo(1.0);
        String wrongTests = TestBlocks.format(List.of(new TestCase("has_close_elements([1.0, 1.05], 0.1)", "False")));
        assertThat(t.step(start(t), "tester", Completion.ofText(wrongTests))
                        .reward()
                        .local())
                .isZero();
    }

    @Test
    void assertedCallsReadStringsWhoseBracketsAndCommasAreText() {
        String testCode = String.join(
                "\n",
                "def check(candidate):",
                "    assert candidate('a, (b') == 'x, y)', 'a message, with a comma'",
                "    assert candidate(1,", // a call over two lines is left out
                "                     2) == 3",
                "    assert candidate(\"it\\\"s\", [1, 2]) == [\"(\", 3]",
                "    assert not candidate(')')");
        CodeItem item = new CodeItem("strings", "q", List.of(), "", new CodeItem.Functional("", "f", testCode));
        assertThat(CodeOracle.tests(item))
                .containsExactly(
                        new TestCase("f('a, (b')", "'x, y)'"),
                        new TestCase("f(\"it\\\"s\", [1, 2])", "[\"(\", 3]"),
                        new TestCase("f(')')", "False"));
    }

    static TextPolicy mixed(List<CodeItem> items) {
        return TaskContract.halfRight(new CodeOracle(items, false), new CodeOracle(items, true));
    }

    @Tag("heavy")
    @Nested
    class StdioContract extends TaskContract<CodeState> {
        @Override
        protected CodeTask task() {
            return CodeTaskTest.task(List.of("coder", "tester"), List.of(SUM), 1);
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(1).problems(Split.TEST, 0, 1);
        }

        @Override
        protected TextPolicy policy() {
            return mixed(List.of(SUM));
        }
    }

    @Tag("heavy")
    @Nested
    class HumanEvalSingleAgentContract extends TaskContract<CodeState> {
        @Override
        protected CodeTask task() {
            return CodeTaskTest.task(List.of("coder"), humanEval.subList(0, 3), 1);
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(1).problems(Split.TEST, 0, 3);
        }

        @Override
        protected TextPolicy policy() {
            return mixed(humanEval);
        }
    }
}

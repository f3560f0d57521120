package org.pettingllms.envs.code;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.envs.code.CodeItem.TestCase;
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * {@code code-v1} (ENVIRONMENTS.md): a {@code coder} writes a program, a {@code tester} writes test cases.
 * Coder local reward and team reward: the program's ground-truth pass ratio; success: all pass. The tester's
 * tests are run on the current program and the mismatches go into both roles' next prompts; when the dataset has
 * a reference solution, the fraction of the tester's tests it passes is the tester's local reward (a test the
 * reference fails is a wrong test; reference defect 6 never loaded it), else 0. The episode ends when the
 * program passes all of the tester's tests, or after T turns. With roles {@code [coder]}: one program.
 * Problems come from dataset files or from the function-task generator ({@link FunctionTasks}); warm-up
 * demonstrations of generated tasks come from {@link FunctionTaskDemonstrations}, of dataset rows from the oracle.
 */
public final class CodeTask extends DatasetTask<CodeState, CodeItem> implements Demonstrations {
    public static final String CODER = "coder";
    public static final String TESTER = "tester";

    private final CodeRunner runner;
    private final int maxTests;
    private final int maxTesterTests;

    public CodeTask(
            List<String> roles,
            int maxTurns,
            List<CodeItem> train,
            List<CodeItem> test,
            CodeRunner runner,
            int maxTests,
            int maxTesterTests) {
        this(roles, maxTurns, new Items.Listed<>(train, test, CodeItem.class), runner, maxTests, maxTesterTests);
    }

    /** @param items the problems: files, or generated function tasks ({@link FunctionTasks}) */
    public CodeTask(
            List<String> roles,
            int maxTurns,
            Items<CodeItem> items,
            CodeRunner runner,
            int maxTests,
            int maxTesterTests) {
        super(roles, List.of(CODER, TESTER), CODER, maxTurns, items, CodeState::start);
        this.runner = runner;
        this.maxTests = maxTests;
        this.maxTesterTests = maxTesterTests;
    }

    @Override
    public String id() {
        return "code-v1";
    }

    @Override
    protected Prompt compactPrompt(CodeState state, String role, int turn) {
        return CodePrompts.compact(id(), state, role);
    }

    @Override
    protected Prompt chatPrompt(CodeState state, String role, int turn) {
        return role.equals(CODER) ? CodePrompts.coder(state) : CodePrompts.tester(state);
    }

    @Override
    public Transition<CodeState> step(CodeState state, String role, Completion completion) {
        return checkRole(role).equals(CODER)
                ? coderStep(state, completion.text())
                : testerStep(state, completion.text());
    }

    /**
     * The coder's program: the last fenced Python block, or (compact answers have no fence) the whole answer when
     * it is Python; an answer that is neither is unparseable, not a failed program. Whether an unfenced answer
     * compiles is asked only when it passes no ground-truth test (one that passes a test is Python), so a trained
     * coder's answers cost no extra sandbox run.
     */
    private Transition<CodeState> coderStep(CodeState s, String text) {
        Optional<String> fenced = CodeBlocks.lastPython(text);
        Optional<String> code =
                fenced.or(() -> text.contains("```") || text.isBlank() ? Optional.empty() : Optional.of(text));
        double pass = code.isEmpty() ? 0 : runner.groundTruth(code.get(), s.item(), maxTests);
        if (code.isEmpty() || fenced.isEmpty() && pass == 0 && !runner.compiles(text)) {
            CodeState next = new CodeState(s.item(), s.program(), s.tests(), s.mismatches(), s.passRatio());
            return new Transition<>(
                    next, RewardParts.ZERO, alone(), s.success(), StepOutcome.UNPARSEABLE, "no code block");
        }
        List<CodeRunner.Outcome> mismatches = mismatches(code.get(), s.tests(), s.item());
        CodeState next = new CodeState(s.item(), code.get(), s.tests(), mismatches, pass);
        boolean passesTester = !s.tests().isEmpty() && mismatches.isEmpty();
        boolean done = alone() || passesTester;
        return new Transition<>(
                next,
                new RewardParts(pass, pass, 0),
                done,
                next.success(),
                next.success() && done ? StepOutcome.SOLVED : StepOutcome.OK,
                "ground truth %.0f%%, tester tests %s"
                        .formatted(
                                100 * pass,
                                s.tests().isEmpty()
                                        ? "none"
                                        : (s.tests().size() - mismatches.size()) + "/"
                                                + s.tests().size()));
    }

    private Transition<CodeState> testerStep(CodeState s, String text) {
        List<TestCase> tests = TestBlocks.parse(text, maxTesterTests);
        if (tests.isEmpty() && s.item().functional() != null) { // compact: one call==expected per line
            tests = TestBlocks.parseCalls(text, s.item().functional().entryPoint(), maxTesterTests);
        }
        if (tests.isEmpty()) {
            CodeState next = new CodeState(s.item(), s.program(), List.of(), List.of(), s.passRatio());
            return new Transition<>(
                    next,
                    new RewardParts(0, s.passRatio(), 0),
                    false,
                    s.success(),
                    StepOutcome.UNPARSEABLE,
                    "no test cases");
        }
        double local = s.item().solution() == null
                ? 0
                : CodeRunner.passRatio(runner.run(s.item().solution(), tests, s.item()));
        List<CodeRunner.Outcome> mismatches =
                s.program() == null ? List.of() : mismatches(s.program(), tests, s.item());
        CodeState next = new CodeState(s.item(), s.program(), tests, mismatches, s.passRatio());
        boolean done = s.program() != null && mismatches.isEmpty();
        return new Transition<>(
                next,
                new RewardParts(local, s.passRatio(), 0),
                done,
                s.success(),
                s.success() && done ? StepOutcome.SOLVED : StepOutcome.OK,
                "%d tests, reference passes %.0f%%, program fails %d"
                        .formatted(tests.size(), 100 * local, mismatches.size()));
    }

    private List<CodeRunner.Outcome> mismatches(String program, List<TestCase> tests, CodeItem item) {
        return runner.run(program, tests, item).stream()
                .filter(o -> !o.passed())
                .toList();
    }

    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (items() instanceof Items.Generated<CodeItem>) {
            if (settings.turns() != 1) {
                throw new IllegalArgumentException(
                        "turns " + settings.turns()
                                + " asked, but the generated function tasks set their own turns (a second one after failed tests); use 1");
            }
            return FunctionTaskDemonstrations.of(this, problem, style, settings, rng);
        }
        return oracleDemonstrations(problem, style, settings, rng);
    }

    @Override
    protected TextPolicy oracle(List<CodeItem> items, boolean wrong) {
        return new CodeOracle(items, wrong);
    }
}

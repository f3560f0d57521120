package org.pettingllms.envs.math;

import java.time.Duration;
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
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.sandbox.CodeBlocks;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * {@code math-v1} (ENVIRONMENTS.md): a {@code tool} role writes Python that prints the answer (run in the
 * sandbox) and a {@code reasoner} role reasons and boxes its answer. Local rewards: tool 1 if its printed answer
 * is correct, 0 if wrong, -1 if it printed nothing or failed; reasoner 1 if correct. Team reward: the reasoner's
 * answer is correct. The episode ends when the two answers agree or after T turns; success is the reasoner's
 * latest answer being correct. With roles {@code [reasoner]} it is the single-agent variant (one answer).
 * Problems come from dataset files or from the word-problem generator ({@link WordProblems}); warm-up
 * demonstrations of generated problems come from {@link WordProblemDemonstrations}, of dataset rows from the oracle.
 */
public final class MathTask extends DatasetTask<MathState, MathItem> implements Demonstrations {
    public static final String TOOL = "tool";
    public static final String REASONER = "reasoner";

    private final Sandbox sandbox;
    private final SandboxLimits toolLimits;

    public MathTask(
            List<String> roles,
            int maxTurns,
            List<MathItem> train,
            List<MathItem> test,
            Sandbox sandbox,
            Duration toolTimeout) {
        this(roles, maxTurns, new Items.Listed<>(train, test, MathItem.class), sandbox, toolTimeout);
    }

    /** @param items the rows: files, or generated word problems ({@link WordProblems}) */
    public MathTask(List<String> roles, int maxTurns, Items<MathItem> items, Sandbox sandbox, Duration toolTimeout) {
        super(roles, List.of(TOOL, REASONER), REASONER, maxTurns, items, MathState::start);
        this.sandbox = sandbox;
        this.toolLimits = sandbox == null ? null : sandbox.limits().forWork(toolTimeout);
    }

    @Override
    public String id() {
        return "math-v1";
    }

    @Override
    protected Prompt compactPrompt(MathState state, String role, int turn) {
        return MathPrompts.compact(id(), state, role);
    }

    @Override
    protected Prompt chatPrompt(MathState state, String role, int turn) {
        return role.equals(TOOL) ? MathPrompts.tool(state) : MathPrompts.reasoner(state);
    }

    @Override
    public Transition<MathState> step(MathState state, String role, Completion completion) {
        return checkRole(role).equals(TOOL)
                ? toolStep(state, completion.text())
                : reasonerStep(state, completion.text());
    }

    /**
     * Runs the tool's program: the last fenced Python block, or (compact answers have no fence) the whole answer;
     * an answer without a fence that is not a Python program at all is unparseable, not a failed program.
     */
    private Transition<MathState> toolStep(MathState s, String text) {
        Optional<String> fenced = CodeBlocks.lastPython(text);
        // an unfenced answer is run as it is; if it has a broken fence or is no Python at all, it is unparseable
        Execution run = fenced.isPresent() || !text.contains("```") && !text.isBlank()
                ? sandbox.run(fenced.orElse(text), "", toolLimits)
                : null;
        if (run == null || fenced.isEmpty() && run.stderr().contains("SyntaxError")) {
            MathState next = new MathState(
                    s.item(), new MathState.ToolAttempt("", "no ```python``` block", null), s.reasoner(), s.success());
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.UNPARSEABLE, "no code block");
        }
        return toolOutput(s, fenced.orElse(text), run.ok() ? run.stdout() : null, run.summary());
    }

    /**
     * The tool's step once its program has run: {@code printed} is what it printed (null when it failed, {@code
     * failure} saying how). Rewards: 1 if the last printed line is the answer, 0 if it is another, -1 if the
     * program printed nothing or failed. Also used to build warm-up demonstrations without a sandbox.
     */
    Transition<MathState> toolOutput(MathState s, String code, String printed, String failure) {
        String out = printed == null ? "" : printed.strip();
        if (out.isEmpty()) {
            String why = printed == null ? failure : "printed nothing";
            MathState next =
                    new MathState(s.item(), new MathState.ToolAttempt(code, why, null), s.reasoner(), s.success());
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.INVALID_ACTION, why);
        }
        String last = out.lines().reduce((a, b) -> b).orElse("").strip();
        String answer = AnswerExtractor.lastBoxed(last).orElse(last);
        boolean correct = AnswerChecker.equivalent(answer, s.item().answer());
        MathState next =
                new MathState(s.item(), new MathState.ToolAttempt(code, out, answer), s.reasoner(), s.success());
        return new Transition<>(
                next,
                new RewardParts(correct ? 1 : 0, 0, 0),
                false,
                s.success(),
                StepOutcome.OK,
                "printed " + clip(answer) + (correct ? " (correct)" : " (wrong)"));
    }

    private Transition<MathState> reasonerStep(MathState s, String text) {
        Optional<String> answer = AnswerExtractor.extract(text);
        boolean correct =
                answer.map(a -> AnswerChecker.equivalent(a, s.item().answer())).orElse(false);
        MathState next =
                new MathState(s.item(), s.tool(), new MathState.ReasonerAttempt(text, answer.orElse(null)), correct);
        boolean agree = answer.isPresent()
                && s.tool() != null
                && s.tool().answer() != null
                && AnswerChecker.equivalent(s.tool().answer(), answer.get());
        boolean done = alone() || agree;
        double r = correct ? 1 : 0;
        StepOutcome stop =
                answer.isEmpty() ? StepOutcome.UNPARSEABLE : done && correct ? StepOutcome.SOLVED : StepOutcome.OK;
        return new Transition<>(
                next,
                new RewardParts(r, r, 0),
                done,
                correct,
                stop,
                "answer " + answer.map(MathTask::clip).orElse("(none)") + (correct ? " (correct)" : " (wrong)")
                        + (agree ? ", agrees with the tool" : ""));
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (items() instanceof Items.Generated<MathItem>) {
            if (settings.turns() != 1) {
                throw new IllegalArgumentException("turns " + settings.turns()
                        + " asked, but the generated word problems are demonstrated at the first turn only; use 1");
            }
            return WordProblemDemonstrations.of(this, problem, style, settings, rng);
        }
        return oracleDemonstrations(problem, style, settings, rng);
    }

    @Override
    protected TextPolicy oracle(List<MathItem> items, boolean wrong) {
        return new MathOracle(items, wrong);
    }
}

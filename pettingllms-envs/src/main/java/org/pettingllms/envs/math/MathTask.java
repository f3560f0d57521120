package org.pettingllms.envs.math;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.MathRows.MathItem;
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
 */
public final class MathTask extends DatasetTask<MathState, MathItem> {
    public static final String TOOL = "tool";
    public static final String REASONER = "reasoner";

    private final Sandbox sandbox;
    private final SandboxLimits toolLimits;

    public MathTask(List<String> roles, int maxTurns, List<MathItem> train, List<MathItem> test, Sandbox sandbox,
                    Duration toolTimeout) {
        super(roles, List.of(List.of(TOOL, REASONER), List.of(REASONER)), maxTurns, train, test, MathItem.class);
        this.sandbox = sandbox;
        this.toolLimits = sandbox == null ? null : sandbox.limits().withWallTime(toolTimeout);
    }

    @Override
    public String id() {
        return "math-v1";
    }

    @Override
    public MathState initialState(Problem problem) {
        return MathState.start(row(problem));
    }

    @Override
    public Prompt prompt(MathState state, String role, int turn, PromptStyle style) {
        return switch (checkRole(role)) {
            case TOOL -> MathPrompts.tool(state, style);
            default -> MathPrompts.reasoner(state, style);
        };
    }

    @Override
    public Transition<MathState> step(MathState state, String role, Completion completion) {
        return checkRole(role).equals(TOOL) ? toolStep(state, completion.text()) : reasonerStep(state, completion.text());
    }

    private Transition<MathState> toolStep(MathState s, String text) {
        Optional<String> code = CodeBlocks.lastPython(text);
        if (code.isEmpty()) {
            MathState next = new MathState(s.item(), new MathState.ToolAttempt("", "no ```python``` block", null),
                    s.reasoner(), s.success());
            return new Transition<>(next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.UNPARSEABLE,
                    "no code block");
        }
        Execution run = sandbox.run(code.get(), "", toolLimits);
        String printed = run.stdout().strip();
        if (!run.ok() || printed.isEmpty()) {
            String why = run.ok() ? "printed nothing" : run.summary();
            MathState next = new MathState(s.item(), new MathState.ToolAttempt(code.get(), why, null), s.reasoner(),
                    s.success());
            return new Transition<>(next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.INVALID_ACTION, why);
        }
        String last = printed.lines().reduce((a, b) -> b).orElse("").strip();
        String answer = AnswerExtractor.lastBoxed(last).orElse(last);
        boolean correct = AnswerChecker.equivalent(answer, s.item().answer());
        MathState next = new MathState(s.item(), new MathState.ToolAttempt(code.get(), printed, answer), s.reasoner(),
                s.success());
        return new Transition<>(next, new RewardParts(correct ? 1 : 0, 0, 0), false, s.success(), StepOutcome.OK,
                "printed " + clip(answer) + (correct ? " (correct)" : " (wrong)"));
    }

    private Transition<MathState> reasonerStep(MathState s, String text) {
        Optional<String> answer = AnswerExtractor.extract(text);
        boolean correct = answer.map(a -> AnswerChecker.equivalent(a, s.item().answer())).orElse(false);
        MathState next = new MathState(s.item(), s.tool(), new MathState.ReasonerAttempt(text, answer.orElse(null)),
                correct);
        boolean agree = answer.isPresent() && s.tool() != null && s.tool().answer() != null
                && AnswerChecker.equivalent(s.tool().answer(), answer.get());
        boolean done = roles().size() == 1 || agree;
        double r = correct ? 1 : 0;
        StepOutcome stop = answer.isEmpty() ? StepOutcome.UNPARSEABLE : done && correct ? StepOutcome.SOLVED : StepOutcome.OK;
        return new Transition<>(next, new RewardParts(r, r, 0), done, correct, stop,
                "answer " + answer.map(MathTask::clip).orElse("(none)") + (correct ? " (correct)" : " (wrong)")
                        + (agree ? ", agrees with the tool" : ""));
    }

    private static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    @Override
    protected TextPolicy oracle(List<MathItem> items, boolean wrong) {
        return new MathOracle(items, wrong);
    }

    @Override
    public String mainRole() {
        return REASONER;
    }
}

package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
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
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/** math-v1: rewards and termination as specified, the task contract, and oracle evaluation on real benchmarks. */
class MathTaskTest {
    static Sandbox box;
    static List<MathItem> aime;

    @BeforeAll
    static void setUp() {
        box = Sandbox.create(SandboxLimits.DEFAULT, 2);
        aime = MathRows.load(MathDatasetsTest.math("aime24.test.jsonl"));
    }

    static MathTask task(List<String> roles, List<MathItem> test) {
        return new MathTask(roles, 4, List.of(), test, box, Duration.ofSeconds(20));
    }

    static final MathItem HALF = new MathItem("h", "What is one half as a fraction?", "\\frac{1}{2}");

    MathState start(MathTask t) {
        return t.initialState(t.problems(1).problems(Split.TEST, 0, 1).get(0));
    }

    @Test
    void toolRewardIsOneIfCorrectZeroIfWrongMinusOneWithoutOutput() {
        MathTask t = task(List.of("tool", "reasoner"), List.of(HALF));
        MathState s = start(t);
        assertThat(t.step(s, "tool", Completion.ofText("```python\nprint(1/2)\n```"))
                        .reward()
                        .local())
                .isEqualTo(1);
        assertThat(t.step(s, "tool", Completion.ofText("```python\nprint(2)\n```"))
                        .reward()
                        .local())
                .isEqualTo(0);
        assertThat(t.step(s, "tool", Completion.ofText("```python\nx = 1\n```"))
                        .reward()
                        .local())
                .isEqualTo(-1);
        Transition<MathState> crash = t.step(s, "tool", Completion.ofText("```python\n1/0\n```"));
        assertThat(crash.reward().local()).isEqualTo(-1);
        assertThat(crash.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        assertThat(crash.next().tool().output()).contains("ZeroDivisionError");
        assertThat(t.step(s, "tool", Completion.ofText("the answer is 1/2")).outcome())
                .isEqualTo(StepOutcome.UNPARSEABLE);
    }

    @Test
    void reasonerEarnsLocalAndTeamRewardAndTheEpisodeEndsWhenAnswersAgree() {
        MathTask t = task(List.of("tool", "reasoner"), List.of(HALF));
        MathState afterTool = t.step(start(t), "tool", Completion.ofText("```python\nprint(0.5)\n```"))
                .next();
        Transition<MathState> agree = t.step(afterTool, "reasoner", Completion.ofText("so \\boxed{\\frac12}"));
        assertThat(agree.reward().local()).isEqualTo(1);
        assertThat(agree.reward().team()).isEqualTo(1);
        assertThat(agree.done()).isTrue();
        assertThat(agree.success()).isTrue();
        Transition<MathState> disagree = t.step(afterTool, "reasoner", Completion.ofText("\\boxed{2}"));
        assertThat(disagree.reward().team()).isEqualTo(0);
        assertThat(disagree.done()).isFalse();
        assertThat(disagree.success()).isFalse();
        assertThat(t.prompt(disagree.next(), "tool", 1, PromptStyle.CHAT).text())
                .contains(
                        "Reasoning agent's latest solution",
                        "Its answer: 2",
                        "Code agent's latest program",
                        "print(0.5)",
                        "If one is right");
    }

    @Test
    void theReasonerSeesTheToolsAnswerOfTheSameTurn() {
        MathTask t = task(List.of("tool", "reasoner"), List.of(HALF));
        MathState afterTool = t.step(start(t), "tool", Completion.ofText("```python\nprint(0.5)\n```"))
                .next();
        assertThat(t.prompt(afterTool, "reasoner", 0, PromptStyle.CHAT).text()).contains("Its output: 0.5");
    }

    @Test
    void theSingleAgentAnswersOnce() {
        MathTask t = task(List.of("reasoner"), List.of(HALF));
        Transition<MathState> tr = t.step(start(t), "reasoner", Completion.ofText("\\boxed{3}"));
        assertThat(tr.done()).isTrue();
        assertThat(tr.success()).isFalse();
    }

    static double evaluate(MathTask t, TextPolicy policy, List<Problem> problems) {
        return GreedyEvaluation.successRate(t, policy, problems, PromptStyle.CHAT, 4096);
    }

    @Tag("heavy")
    @Test
    void theOracleTeamScoresAllOfAime24AndTheWrongTeamNothing() {
        MathTask t = task(List.of("tool", "reasoner"), aime);
        List<Problem> all = t.problems(1).problems(Split.TEST, 0, 1000);
        assertThat(all).hasSize(30);
        assertThat(evaluate(t, new MathOracle(aime, false), all)).isEqualTo(1.0);
        assertThat(evaluate(t, new MathOracle(aime, true), all)).isEqualTo(0.0);
    }

    @Test
    void theOracleReasonerScoresAllOfGsm8kTest() {
        List<MathItem> gsm = MathRows.load(MathDatasetsTest.math("gsm8k.test.jsonl"));
        MathTask t = task(List.of("reasoner"), gsm);
        List<Problem> all = t.problems(1).problems(Split.TEST, 0, 10_000);
        assertThat(all).hasSize(1319);
        assertThat(evaluate(t, new MathOracle(gsm, false), all)).isEqualTo(1.0);
        assertThat(evaluate(t, new MathOracle(gsm, true), all)).isEqualTo(0.0);
    }

    /** The contract on four AIME problems, oracle answers half right, half wrong; the roles make the variant. */
    abstract class AimeContract extends TaskContract<MathState> {
        abstract List<String> roles();

        @Override
        protected MathTask task() {
            return MathTaskTest.task(roles(), aime.subList(0, 4));
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(1).problems(Split.TEST, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            return halfRight(new MathOracle(aime, false), new MathOracle(aime, true));
        }
    }

    @Tag("heavy")
    @Nested
    class TeamContract extends AimeContract {
        @Override
        List<String> roles() {
            return List.of("tool", "reasoner");
        }
    }

    @Nested
    class SingleAgentContract extends AimeContract {
        @Override
        List<String> roles() {
            return List.of("reasoner");
        }
    }
}

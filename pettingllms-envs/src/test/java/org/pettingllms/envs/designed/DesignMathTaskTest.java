package org.pettingllms.envs.designed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.workflow.DesignedSystem;
import org.pettingllms.envs.math.WordProblems;
import org.pettingllms.testkit.ScriptedSampler;

/**
 * {@code design-math}: generated word problems posed to a workflow's executors, the Python tool run in the sandbox, the
 * answer read and scored as the math task does; a hand-written workflow checked before it runs.
 */
class DesignMathTaskTest {
    static final RunConfig.TaskSpec SPEC = new RunConfig.TaskSpec(
            DesignMathTasks.NAME,
            PromptStyle.CHAT,
            1,
            List.of(),
            Map.of("generator", "arithmetic", "design", Map.of("executions", 2)));

    static RolloutConfig rollout(int k) {
        return new RolloutConfig(
                RolloutConfig.Mode.PARALLEL,
                k,
                false,
                PromptStyle.CHAT,
                new SamplingParams(1.0, 0, 1.0, 400, List.of(), 3),
                RewardMix.PAPER,
                2);
    }

    /** A solver that knows each problem's answer: as a program when it has the tool, else in words. */
    static TextPolicy knowing(List<Problem> problems, boolean program) {
        return (policy, prompt, rng) -> {
            for (Problem p : problems) {
                var item = WordProblems.of(p.seed()).item();
                if (prompt.text().contains(item.question())) {
                    return program
                            ? "```python\nprint(" + item.answer() + ")\n```"
                            : "The final answer is $\\boxed{" + item.answer() + "}$.";
                }
            }
            return "I do not know.";
        };
    }

    @Test
    void aWorkflowWithThePythonToolSolvesWhatItsProgramsPrint() {
        DesignedSystem system = DesignedSystem.create(SPEC);
        assertThat(system.roles()).containsExactly("designer", "solver", "critic", "judge");
        List<Problem> ps = system.problems(1).problems(Split.VALIDATION, 0, 6);
        PolicyMap policies = PolicyMap.forLevel(Level.L1, system.roles(), "m", java.util.Set.of());
        DesignedSystem fixed = system.withWorkflow(
                "sequence\n  agent solver [python]: Write a Python program that prints the answer.\n"
                        + "  agent critic: State the final answer in a box.\n",
                "test");
        assertThat(fixed.roles()).containsExactly("solver", "critic", "judge");
        TextPolicy policy = (ref, prompt, rng) -> prompt.text().contains("State the final answer")
                ? "The final answer is $\\boxed{" + lastLine(prompt.text()) + "}$."
                : knowing(ps, true).answer(ref, prompt, rng);
        RolloutResult r =
                fixed.rollouts(ScriptedSampler.of(policy), RolloutProgress.NONE).run(ps, policies, rollout(1));
        assertThat(r.episodes()).hasSize(6).allMatch(EpisodeResult::success);
        assertThat(r.episodes().get(0).path().get(1).summary()).contains("tool ran");
        assertThat(r.samples()).noneMatch(s -> s.role().equals("designer"));
        // the same problems in words, without the tool, and a solver that does not know
        DesignedSystem words = system.withWorkflow("agent solver: Solve it.", "test");
        assertThat(words.rollouts(ScriptedSampler.of(knowing(ps, false)), RolloutProgress.NONE)
                        .run(ps, policies, rollout(1))
                        .episodes())
                .allMatch(EpisodeResult::success);
        assertThat(words.rollouts(ScriptedSampler.of((ref, prompt, rng) -> "no idea"), RolloutProgress.NONE)
                        .run(ps, policies, rollout(1))
                        .episodes())
                .noneMatch(EpisodeResult::success);
    }

    static String lastLine(String text) {
        List<String> lines = text.strip().lines().toList();
        return lines.get(lines.size() - 1).strip();
    }

    @Test
    void aHandWrittenWorkflowIsCheckedBeforeItRuns() {
        DesignedSystem system = DesignedSystem.create(SPEC);
        assertThatThrownBy(() -> system.withWorkflow("agent solver [shell]: Go.", "--workflow my.flow"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("--workflow my.flow: line 1: no tool 'shell'; tools are python");
        assertThatThrownBy(() -> system.withWorkflow("agent coder: Go.", "--workflow my.flow"))
                .hasMessage("--workflow my.flow: line 1: no executor role 'coder'; roles are critic, judge, solver");
    }

    @Test
    void executorRolesAreNamesADesignCanWrite() {
        for (List<String> roles : List.of(List.of("designer"), List.of("Solver"), List.of("solver", "solver"))) {
            assertThatThrownBy(() -> DesignedSystem.create(new RunConfig.TaskSpec(
                            DesignMathTasks.NAME, PromptStyle.CHAT, 1, roles, Map.of("generator", "arithmetic"))))
                    .as(roles.toString())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("config key 'task.roles': executor roles are distinct names");
        }
    }

    @Test
    void designOptionsAreCheckedByName() {
        assertThatThrownBy(() -> DesignedSystem.create(new RunConfig.TaskSpec(
                        DesignMathTasks.NAME,
                        PromptStyle.CHAT,
                        1,
                        List.of(),
                        Map.of("generator", "arithmetic", "design", Map.of("executionz", 2)))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.design.executionz");
        assertThatThrownBy(() -> DesignedSystem.create(new RunConfig.TaskSpec(
                        DesignMathTasks.NAME,
                        PromptStyle.CHAT,
                        1,
                        List.of(),
                        Map.of("generator", "arithmetic", "design", Map.of("schedule", "sometimes")))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.design.schedule");
    }
}

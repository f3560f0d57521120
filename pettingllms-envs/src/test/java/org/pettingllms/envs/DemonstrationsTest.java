package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.SolverDemonstrations;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sudoku.SudokuGame;

class DemonstrationsTest {
    @Test
    void cleanDemonstrationsSolveAndThePlanRoleSeesTheToolsProposal() {
        var task = new PlanningTask<>(new PlanPathGame(PlanPathGame.Options.DEFAULT), List.of("tool", "plan"), 4);
        for (var p : new SeededProblems(task.id(), 0).problems(Split.TRAIN, 0, 20)) {
            var demos = SolverDemonstrations.of(task, p, PromptStyle.COMPACT, 0.0, new SplittableRandom(1));
            assertThat(demos).extracting(Demonstrations.Demo::role).containsExactly("tool", "plan");
            assertThat(demos.get(1).prompt().text())
                    .contains("tool: " + demos.get(0).answer() + " -> ")
                    .contains("goal yes");
            var state = task.initialState(p);
            var afterTool =
                    task.step(state, "tool", Completion.ofText(demos.get(0).answer()));
            assertThat(task.step(
                                    afterTool.next(),
                                    "plan",
                                    Completion.ofText(demos.get(1).answer()))
                            .success())
                    .isTrue();
        }
    }

    @Test
    void noiseMakesSomeAnswersImperfect() {
        var task = new PlanningTask<>(new SudokuGame(SudokuGame.Options.DEFAULT), List.of("plan"), 4);
        SplittableRandom rng = new SplittableRandom(2);
        int solved = 0;
        int n = 200;
        for (var p : new SeededProblems(task.id(), 0).problems(Split.TRAIN, 0, n)) {
            var d = SolverDemonstrations.of(task, p, PromptStyle.COMPACT, 0.5, rng)
                    .get(0);
            if (task.step(task.initialState(p), "plan", Completion.ofText(d.answer()))
                    .success()) {
                solved++;
            }
        }
        assertThat(solved).isBetween(n / 2 - 30, n / 2 + 30);
    }
}

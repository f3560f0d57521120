package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.torch.engine.SupervisedTraining;

/** The warm-up's single-agent demonstrations: how many, what their prompts hold, and older recipes unchanged. */
class SupervisedDemonstrationsTest {
    final PlanPathGame game = new PlanPathGame(PlanPathGame.Options.DEFAULT);
    final PlanningTask<?, ?> team = new PlanningTask<>(game, List.of("tool", "plan"), 2);
    final PlanningTask<?, ?> single = new PlanningTask<>(game, List.of("plan"), 2);
    final List<Problem> problems = new SeededProblems("plan-path", 1).problems(ProblemSource.Split.TRAIN, 0, 400);

    SupervisedTraining.Settings settings(double alone) {
        return new SupervisedTraining.Settings(
                1, 1, 1e-3, new Demonstrations.Settings(0.3, 0.5), List.of(), Map.of(), alone);
    }

    List<Demonstrations.Demo> all(double alone, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<Demonstrations.Demo> out = new ArrayList<>();
        for (Problem p : problems) {
            out.addAll(SupervisedTraining.demonstrations(team, single, p, PromptStyle.COMPACT, settings(alone), rng));
        }
        return out;
    }

    @Test
    void aFractionOfTheProblemsAlsoTeachThePlannerAlone() {
        List<Demonstrations.Demo> demos = all(0.25, 7);
        long alone = demos.stream()
                .filter(d -> d.role().equals("plan") && !d.prompt().text().contains("\ntool: "))
                .count();
        long teamPlan = demos.stream()
                .filter(d -> d.prompt().text().contains("\ntool: "))
                .count();
        assertThat(teamPlan).as("every problem keeps its team demonstrations").isEqualTo(problems.size());
        // 400 problems at 25%: 100 expected, binomial sd 8.7
        assertThat(alone).isBetween(70L, 130L);
        assertThat(demos).hasSize(2 * problems.size() + (int) alone);
    }

    @Test
    void withoutSingleAgentDemonstrationsTheDataIsWhatItWas() {
        SplittableRandom rng = new SplittableRandom(7);
        List<Demonstrations.Demo> before = new ArrayList<>();
        for (Problem p : problems) {
            before.addAll(Demonstrations.of(team, p, PromptStyle.COMPACT, new Demonstrations.Settings(0.3, 0.5), rng));
        }
        assertThat(all(0, 7)).isEqualTo(before);
    }
}

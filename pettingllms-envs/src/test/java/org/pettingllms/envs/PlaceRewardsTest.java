package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.PlaceRewards;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.sudoku.SudokuGame;

class PlaceRewardsTest {
    static final SudokuGame SUDOKU = new SudokuGame(new SudokuGame.Options(4, 8));

    static <B, A> PlaceRewards.Report report(Game<B, A> game, int boards) {
        PlanningTask<B, A> task = new PlanningTask<>(game, List.of(PlanningTask.TOOL, PlanningTask.PLAN), 2);
        return PlaceRewards.of(task, new SeededProblems(task.id(), 1).problems(Split.TRAIN, 0, boards), 0.05);
    }

    @Test
    void everyProgramIsScoredWithItsWrongPlacesAndEachPlaceAgainstAllCombinationsOfTheOthers() {
        PlaceRewards.Report r = report(SUDOKU, 60);
        assertThat(r.programs()).hasSize(32);
        Map<Set<String>, PlaceRewards.Program> byWrong =
                r.programs().stream().collect(Collectors.toMap(PlaceRewards.Program::wrong, p -> p));
        assertThat(byWrong).hasSize(32);
        PlaceRewards.Program correct = byWrong.get(Set.of());
        assertThat(correct.solved()).isEqualTo(1.0);
        for (PlaceRewards.Place place : r.places()) {
            assertThat(place.contexts()).isEqualTo(16);
            // the gain with every other place right is the correct program's reward less the one-place program's
            assertThat(place.gainAloneWrong())
                    .isCloseTo(
                            correct.reward() - byWrong.get(Set.of(place.name())).reward(), within(1e-9));
            // the mean gain and the paying count, recomputed from the programs' rewards over the 16 combinations
            double sum = 0;
            int paying = 0;
            for (Set<String> others : byWrong.keySet()) {
                if (others.contains(place.name())) {
                    continue;
                }
                Set<String> withFlaw = new java.util.HashSet<>(others);
                withFlaw.add(place.name());
                double gain = byWrong.get(others).reward()
                        - byWrong.get(Set.copyOf(withFlaw)).reward();
                sum += gain;
                paying += gain > 0.05 ? 1 : 0;
            }
            assertThat(place.meanGain()).as(place.name()).isCloseTo(sum / 16, within(1e-9));
            assertThat(place.paying()).as(place.name()).isEqualTo(paying);
        }
        // rows printed as columns conflict with the clues whatever the search did: its fix pays everywhere
        PlaceRewards.Place transposed = place(r, "transposed");
        assertThat(transposed.paying()).isEqualTo(16);
        assertThat(transposed.smallestGain()).isPositive();
        // with values only up to n - 1 the search finds no completion and prints the board unchanged, so whether it
        // started at the first row or stopped one cell short changes nothing (rows right side up)
        for (String other : List.of("skips-first-row", "stops-one-short")) {
            double withShortValues = byWrong.get(Set.of("values-short")).reward()
                    - byWrong.get(Set.of("values-short", other)).reward();
            assertThat(withShortValues).as(other).isCloseTo(0.0, within(0.05));
        }
    }

    static PlaceRewards.Place place(PlaceRewards.Report r, String name) {
        return r.places().stream()
                .filter(p -> p.name().equals(name))
                .findFirst()
                .orElseThrow();
    }
}

package org.pettingllms.core.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource.Split;

/** Runs with different seeds share no problem; the three splits share none; dataset validation rows never train. */
class ProblemSplitsTest {

    @Test
    void differentRunSeedsShareNoProblemOfAnySplit() {
        Set<Long> seen = new HashSet<>();
        int total = 0;
        for (long runSeed = 0; runSeed < 4; runSeed++) {
            for (Split split : Split.values()) {
                for (Problem p : new SeededProblems("plan-path", runSeed).problems(split, 0, 40_000)) {
                    assertThat(SeededProblems.splitOf(p.seed())).isEqualTo(split);
                    seen.add(p.seed());
                    total++;
                }
            }
        }
        assertThat(seen).hasSize(total);
        // the extremes of the ranges are distinct too (a bijection, not a hash that rarely collides)
        long a = SeededProblems.generatorSeed("t", Split.TRAIN, SeededProblems.MAX_RUN_SEED, SeededProblems.MAX_INDEX);
        long b = SeededProblems.generatorSeed("t", Split.TRAIN, 0, 0);
        assertThat(a).isNotEqualTo(b).isNotNegative();
    }

    @Test
    void problemsAreDeterministicAndTheirNeighboursUnrelated() {
        SeededProblems s = new SeededProblems("sokoban", 2);
        assertThat(s.problems(Split.TEST, 5, 3)).isEqualTo(new SeededProblems("sokoban", 2).problems(Split.TEST, 5, 3));
        assertThat(s.problems(Split.TEST, 5, 1).get(0).id()).isEqualTo("sokoban/test/5");
        // seed s and problem i+1 is not seed s+1 and problem i (the old layout's one-problem shift)
        assertThat(new SeededProblems("sokoban", 3).problems(Split.TRAIN, 0, 100))
                .doesNotContainAnyElementsOf(s.problems(Split.TRAIN, 0, 101));
        // neighbouring indices differ in about half the bits of the seed
        double bits = 0;
        List<Problem> ps = s.problems(Split.TRAIN, 0, 1001);
        for (int i = 0; i < 1000; i++) {
            bits += Long.bitCount(ps.get(i).seed() ^ ps.get(i + 1).seed());
        }
        assertThat(bits / 1000).isBetween(26.0, 35.0);
        // another task draws other problems
        assertThat(new SeededProblems("sudoku", 2).problems(Split.TRAIN, 0, 50))
                .extracting(Problem::seed)
                .doesNotContainAnyElementsOf(s.problems(Split.TRAIN, 0, 50).stream()
                        .map(Problem::seed)
                        .toList());
    }

    @Test
    void outOfRangeSeedsAndIndicesAreRefused() {
        assertThatThrownBy(() -> new SeededProblems("t", -1)).hasMessageContaining("expected 0 to 536870911");
        assertThatThrownBy(() -> new SeededProblems("t", 1L << 29)).hasMessageContaining("out of range");
        assertThatThrownBy(() -> new SeededProblems("t", 1).problems(Split.TRAIN, SeededProblems.MAX_INDEX, 2))
                .hasMessageContaining("out of range");
        assertThatThrownBy(() -> SeededProblems.splitOf(3L << 61)).hasMessageContaining("belongs to no split");
        assertThat(Split.of(" Test")).isEqualTo(Split.TEST);
        assertThatThrownBy(() -> Split.of("val")).hasMessageContaining("[train, validation, test]");
    }

    @Test
    void datasetValidationRowsAreATenthOfTheTrainFileAndNeverTrain() {
        List<Integer> file = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            file.add(i);
        }
        DatasetProblems<Integer> d = new DatasetProblems<>("math", file, List.of(-1, -2), 7);
        List<Integer> validation = rows(d.problems(Split.VALIDATION, 0, 5000));
        List<Integer> trained = rows(d.problems(Split.TRAIN, 0, 6000)); // three epochs
        assertThat(validation).hasSizeBetween(150, 250).doesNotHaveDuplicates().isSorted();
        assertThat(trained).doesNotContainAnyElementsOf(validation);
        assertThat(new HashSet<>(trained)).hasSize(file.size() - validation.size());
        // fixed whatever the run seed
        assertThat(rows(new DatasetProblems<>("math", file, List.of(), 8).problems(Split.VALIDATION, 0, 5000)))
                .isEqualTo(validation);
        assertThat(rows(d.problems(Split.TEST, 0, 10))).containsExactly(-1, -2);
        assertThat(d.problems(Split.VALIDATION, 3, 1).get(0).id()).isEqualTo("math/validation/3");
        DatasetProblems<Integer> evalOnly = new DatasetProblems<>("math", List.of(), List.of(1), 7);
        assertThatThrownBy(() -> evalOnly.problems(Split.VALIDATION, 0, 5))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.train")
                .hasMessageContaining("no validation problems");
    }

    static List<Integer> rows(List<Problem> ps) {
        return ps.stream()
                .map(p -> (Integer) p.fields().get(DatasetProblems.ITEM))
                .toList();
    }
}

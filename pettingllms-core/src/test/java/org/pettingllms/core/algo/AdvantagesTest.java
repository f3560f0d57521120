package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Sample;

class AdvantagesTest {
    static double[] advantages(List<Sample> samples, Grouping g, boolean std) {
        return Advantages.compute(g.group(samples), std).stream()
                .mapToDouble(ScoredSample::advantage)
                .toArray();
    }

    @Test
    void groupAdvantageUsesTheUnbiasedStd() {
        // rewards 1,2,3,4: mean 2.5; squared deviations 2.25+0.25+0.25+2.25 = 5; unbiased var 5/3, std 1.2909944
        // A = (r - 2.5) / (1.2909944 + 1e-6)
        List<Sample> g = List.of(
                Samples.tree("p", "a", 0, 0, 1),
                Samples.tree("p", "a", 0, 1, 2),
                Samples.tree("p", "a", 0, 2, 3),
                Samples.tree("p", "a", 0, 3, 4));
        double std = Math.sqrt(5.0 / 3.0);
        assertThat(std).isCloseTo(1.2909944, within(1e-7));
        assertThat(advantages(g, Grouping.PROBLEM_ROLE_TURN, true))
                .containsExactly(
                        new double[] {-1.5 / (std + 1e-6), -0.5 / (std + 1e-6), 0.5 / (std + 1e-6), 1.5 / (std + 1e-6)},
                        within(1e-12));
        assertThat(advantages(g, Grouping.PROBLEM_ROLE_TURN, true)[0]).isCloseTo(-1.1618939, within(1e-6));
    }

    @Test
    void withoutStdNormalisationTheAdvantageIsTheCentredReward() {
        List<Sample> g = List.of(Samples.tree("p", "a", 0, 0, 1), Samples.tree("p", "a", 0, 1, 4));
        assertThat(advantages(g, Grouping.PROBLEM_ROLE_TURN, false)).containsExactly(-1.5, 1.5);
    }

    @Test
    void constantGroupsAndSingletonsGetZeroNotNaN() {
        // 0.1 three times: the float mean is 0.10000000000000002, so a naive formula gives tiny non-zero values
        List<Sample> constant = List.of(
                Samples.tree("p", "a", 0, 0, 0.1),
                Samples.tree("p", "a", 0, 1, 0.1),
                Samples.tree("p", "a", 0, 2, 0.1));
        assertThat(advantages(constant, Grouping.PROBLEM_ROLE_TURN, true)).containsExactly(0, 0, 0);
        assertThat(advantages(List.of(Samples.tree("p", "a", 0, 0, 5)), Grouping.PROBLEM_ROLE_TURN, true))
                .containsExactly(0);
    }

    @Test
    void groupsAreSeparateStatistics() {
        // group (p, a, 0): 0, 2 -> mean 1, std sqrt(2): A = -+1/(1.4142136+1e-6)
        // group (p, b, 0): 10, 10 -> 0, 0
        List<Sample> s = List.of(
                Samples.tree("p", "a", 0, 0, 0),
                Samples.tree("p", "a", 0, 1, 2),
                Samples.tree("p", "b", 0, 0, 10),
                Samples.tree("p", "b", 0, 1, 10));
        double a = 1 / (Math.sqrt(2) + 1e-6);
        assertThat(advantages(s, Grouping.PROBLEM_ROLE_TURN, true))
                .containsExactly(new double[] {-a, a, 0, 0}, within(1e-12));
    }

    @Test
    void parallelTrajectoriesCountOnceEachWhateverTheirLength() {
        // trajectory 0 made 2 decisions (reward 1 each), trajectory 1 made 1 (reward 3).
        // units: {1, 3}: mean 2 (not 5/3), std sqrt(2): A = -+1/(sqrt 2 + 1e-6)
        List<Sample> s = List.of(
                Samples.trajectory("p", "plan", 0, 0, 1),
                Samples.trajectory("p", "plan", 1, 0, 1),
                Samples.trajectory("p", "plan", 0, 1, 3));
        double a = 1 / (Math.sqrt(2) + 1e-6);
        assertThat(advantages(s, Grouping.PROBLEM, true)).containsExactly(new double[] {-a, -a, a}, within(1e-12));
    }

    @Test
    void aUnitWithTwoRewardsIsABug() {
        List<Sample> s = List.of(Samples.trajectory("p", "plan", 0, 0, 1), Samples.trajectory("p", "plan", 1, 0, 2));
        Assertions.assertThatThrownBy(() -> advantages(s, Grouping.PROBLEM, true))
                .hasMessageContaining("p#0");
    }
}

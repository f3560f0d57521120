package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;

/**
 * Three trajectories of one problem worked by hand, gamma 0.5:
 * <pre>
 *   trajectory 0: states s0 s1     rewards 0 1     returns 0.5 1
 *   trajectory 1: states s0 s2     rewards 0 0     returns 0   0
 *   trajectory 2: states s0 s1 s3  rewards 1 0 2   returns 1.5 1 2
 * </pre>
 * The step group s0 has returns {0.5, 0, 1.5}: mean 2/3, unbiased std sqrt(7/12); s1 has {1, 1} (equal: no signal);
 * s2 and s3 are alone.
 */
class StateGroupsTest {
    static StateGroups.Trajectory trajectory(int t, List<String> states, List<Double> rewards) {
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < states.size(); i++) {
            Prompt p = Prompt.compact(states.get(i));
            samples.add(new Sample(
                    "P",
                    "act",
                    i,
                    PolicyRef.of("m"),
                    p,
                    Completion.ofText("a"),
                    new RewardParts(0, 0, 0),
                    StepOutcome.OK,
                    0,
                    "P#" + t,
                    t,
                    true));
        }
        return new StateGroups.Trajectory("P", samples, rewards);
    }

    final List<StateGroups.Trajectory> episodes = List.of(
            trajectory(0, List.of("s0", "s1"), List.of(0.0, 1.0)),
            trajectory(1, List.of("s0", "s2"), List.of(0.0, 0.0)),
            trajectory(2, List.of("s0", "s1", "s3"), List.of(1.0, 0.0, 2.0)));

    double step(Map<Sample, Double> a, int trajectory, int t) {
        return a.get(episodes.get(trajectory).samples().get(t));
    }

    @Test
    void stepsShowingTheSamePromptAreScoredByTheirDiscountedReturns() {
        Map<Sample, Double> a = StateGroups.stepAdvantages(episodes, 0.5, 1.0, true);
        double std = Math.sqrt(7.0 / 12);
        assertThat(step(a, 0, 0)).isCloseTo((0.5 - 2.0 / 3) / std, within(1e-5));
        assertThat(step(a, 1, 0)).isCloseTo((0 - 2.0 / 3) / std, within(1e-5));
        assertThat(step(a, 2, 0)).isCloseTo((1.5 - 2.0 / 3) / std, within(1e-5));
        assertThat(step(a, 0, 1)).as("s1: equal returns").isZero();
        assertThat(step(a, 2, 1)).isZero();
        assertThat(step(a, 1, 1)).as("s2 alone").isZero();
        assertThat(step(a, 2, 2)).as("s3 alone").isZero();
        Map<Sample, Double> centred = StateGroups.stepAdvantages(episodes, 0.5, 1.0, false);
        assertThat(step(centred, 2, 0)).isCloseTo(1.5 - 2.0 / 3, within(1e-12));
    }

    @Test
    void theStepAdvantageIsAddedToTheEpisodeAdvantageWithItsWeight() {
        Map<Sample, Double> a = StateGroups.stepAdvantages(episodes, 0.5, 1.0, false);
        Sample s = episodes.get(2).samples().get(0);
        List<ScoredSample> out = StateGroups.combine(List.of(new ScoredSample(s, 0.3)), a, 2.0);
        assertThat(out.get(0).advantage()).isCloseTo(0.3 + 2 * (1.5 - 2.0 / 3), within(1e-12));
    }

    @Test
    void problemsAndRolesNeverShareAGroup() {
        List<StateGroups.Trajectory> two = new ArrayList<>(episodes);
        StateGroups.Trajectory other = trajectory(3, List.of("s0"), List.of(5.0));
        two.add(new StateGroups.Trajectory(
                "Q",
                other.samples().stream()
                        .map(x -> new Sample(
                                "Q",
                                x.role(),
                                x.turn(),
                                x.policy(),
                                x.prompt(),
                                x.completion(),
                                x.rewardParts(),
                                x.outcome(),
                                x.reward(),
                                "Q#3",
                                3,
                                true))
                        .toList(),
                other.rewards()));
        Map<Sample, Double> a = StateGroups.stepAdvantages(two, 0.5, 1.0, false);
        assertThat(step(a, 2, 0)).as("Q's s0 is another state").isCloseTo(1.5 - 2.0 / 3, within(1e-12));
    }

    @Test
    void belowOneSimilarPromptsShareAGroup() {
        assertThat(StateGroups.similarity("kitten", "sitting")).isCloseTo(1 - 3.0 / 7, within(1e-12));
        assertThat(StateGroups.similarity("", "")).isEqualTo(1.0);
        List<StateGroups.Trajectory> near = List.of(
                trajectory(0, List.of("at table, holding apple"), List.of(1.0)),
                trajectory(1, List.of("at table, holding appl"), List.of(0.0)),
                trajectory(2, List.of("in the garden"), List.of(3.0)));
        Map<Sample, Double> exact = StateGroups.stepAdvantages(near, 0.95, 1.0, false);
        assertThat(exact.values()).containsOnly(0.0);
        Map<Sample, Double> similar = StateGroups.stepAdvantages(near, 0.95, 0.9, false);
        assertThat(similar.get(near.get(0).samples().get(0))).isCloseTo(0.5, within(1e-12));
        assertThat(similar.get(near.get(1).samples().get(0))).isCloseTo(-0.5, within(1e-12));
        assertThat(similar.get(near.get(2).samples().get(0))).isZero();
    }

    @Test
    void treeRolloutsAreRefusedByName() {
        assertThatThrownBy(() -> ConfigLoader.fromYaml(
                        "task: {name: counter}\npolicy: {model: m}\n",
                        "test",
                        List.of("algo.stateGroups.enabled=true")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("algo.stateGroups.enabled needs rollout.mode: parallel");
        assertThat(ConfigLoader.fromYaml(
                                "task: {name: counter}\npolicy: {model: m}\n",
                                "test",
                                List.of("algo.stateGroups.enabled=true", "rollout.mode=parallel"))
                        .algo()
                        .stateGroups()
                        .gamma())
                .isEqualTo(0.95);
    }
}

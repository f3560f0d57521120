package org.pettingllms.core.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AsyncScheduleTest {
    private static List<Integer> weights(AsyncSchedule s) {
        List<Integer> out = new ArrayList<>();
        for (int k = s.from(); k < s.steps(); k++) {
            out.add(s.weightsOf(k));
        }
        return out;
    }

    @Test
    void eachStepSamplesTheWeightsOfAtMostMaxStalenessStepsBefore() {
        AsyncSchedule one = new AsyncSchedule(0, 6, 1, s -> false);
        assertThat(weights(one)).containsExactly(0, 0, 1, 2, 3, 4);
        AsyncSchedule two = new AsyncSchedule(0, 6, 2, s -> false);
        assertThat(weights(two)).containsExactly(0, 0, 0, 1, 2, 3);
        for (int k = 0; k < 6; k++) {
            assertThat(two.staleness(k)).isBetween(0, 2);
        }
        assertThat(weights(new AsyncSchedule(0, 4, 0, s -> false)))
                .as("eta 0 is synchronous")
                .containsExactly(0, 1, 2, 3);
    }

    @Test
    void afterAValidationOrCheckpointTheStepsStartAgainFromTheWeightsOfThatMoment() {
        // validation or checkpoint after steps 2 and 5 (every 3)
        AsyncSchedule s = new AsyncSchedule(0, 8, 2, k -> (k + 1) % 3 == 0);
        assertThat(weights(s)).containsExactly(0, 0, 0, 3, 3, 3, 6, 6);
        assertThat(s.rolloutsOn(0)).containsExactly(0, 1, 2);
        assertThat(s.rolloutsOn(1)).as("no rollout samples step 1's weights").isEmpty();
        assertThat(s.rolloutsOn(3)).containsExactly(3, 4, 5);
        assertThat(s.rolloutsOn(6)).containsExactly(6, 7);
    }

    @Test
    void aResumedRunFollowsTheScheduleOfTheUninterruptedOne() {
        AsyncSchedule full = new AsyncSchedule(0, 10, 2, k -> (k + 1) % 4 == 0);
        AsyncSchedule resumed = new AsyncSchedule(4, 10, 2, k -> (k + 1) % 4 == 0); // from the checkpoint after 3
        for (int k = 4; k < 10; k++) {
            assertThat(resumed.weightsOf(k)).as("step %d", k).isEqualTo(full.weightsOf(k));
        }
    }
}

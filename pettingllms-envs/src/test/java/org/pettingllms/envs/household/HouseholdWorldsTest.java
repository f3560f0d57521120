package org.pettingllms.envs.household;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;

/**
 * Properties of the generated worlds over many seeds: the expert solves every one with commands the room admits, each
 * shortening its plan by one; the goal never holds at the start; all six task types appear; the test split's goals
 * are the held-out combinations and no other split has one.
 */
class HouseholdWorldsTest {
    static final RoomGenerator.Sizes SIZES = new RoomGenerator.Sizes(2, 1, 4);

    @Test
    void theExpertSolvesEveryWorldAndEachOfItsCommandsShortensItsPlanByOne() {
        Map<Goal.Type, Integer> types = new EnumMap<>(Goal.Type.class);
        for (Split split : Split.values()) {
            for (Problem p : new SeededProblems("household-v1", 3).problems(split, 0, 150)) {
                RoomGenerator.Generated g = RoomGenerator.generate(p.seed(), split, SIZES);
                assertThat(g.goal().satisfied(g.room())).isFalse();
                assertThat(RoomGenerator.heldOut(
                                g.goal().type(), g.goal().object(), g.goal().receptacle()))
                        .as(p.id())
                        .isEqualTo(split == Split.TEST);
                types.merge(g.goal().type(), 1, Integer::sum);
                Room r = g.room();
                int left = Expert.planLength(r, g.goal(), 40);
                assertThat(left).as(p.id()).isBetween(2, 40);
                while (!g.goal().satisfied(r)) {
                    String c = Expert.next(r, g.goal()).orElseThrow().command();
                    assertThat(r.admissible()).as(p.id()).contains(c);
                    r = r.act(c).room();
                    assertThat(Expert.planLength(r, g.goal(), 40))
                            .as(p.id() + " after " + c)
                            .isEqualTo(--left);
                }
            }
        }
        assertThat(types.keySet()).containsExactlyInAnyOrder(Goal.Type.values());
    }

    @Test
    void aSeedIsOneWorld() {
        long seed = new SeededProblems("household-v1", 1)
                .problems(Split.TRAIN, 5, 1)
                .get(0)
                .seed();
        assertThat(RoomGenerator.generate(seed, Split.TRAIN, SIZES))
                .isEqualTo(RoomGenerator.generate(seed, Split.TRAIN, SIZES));
        assertThat(RoomGenerator.generate(seed + 1, Split.TRAIN, SIZES))
                .isNotEqualTo(RoomGenerator.generate(seed, Split.TRAIN, SIZES));
    }

    @Test
    void bothContentSplitsHaveGoalsOfEveryType() {
        for (Goal.Type t : Goal.Type.values()) {
            long held = 0;
            long kept = 0;
            for (String o : RoomGenerator.candidates(t)) {
                for (String r : t == Goal.Type.LOOK_IN_LIGHT ? List.of(Things.LAMP) : Things.RECEPTACLES) {
                    if (RoomGenerator.heldOut(t, o, r)) {
                        held++;
                    } else {
                        kept++;
                    }
                }
            }
            assertThat(held).as(t.name()).isPositive();
            assertThat(kept).as(t.name()).isGreaterThan(held);
        }
    }
}

package org.pettingllms.envs.household;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The household rules, a hand-played episode at a time. */
class RoomTest {
    static Room kitchen() {
        TreeMap<String, String> placement = new TreeMap<>();
        placement.put("apple 1", "cabinet 1");
        placement.put("knife 1", "countertop 1");
        placement.put("book 1", "sidetable 1");
        TreeMap<String, String> lamps = new TreeMap<>();
        lamps.put("desklamp 1", "sidetable 1");
        return Room.start(
                List.of("countertop 1", "sidetable 1", "cabinet 1", "fridge 1", "microwave 1", "sinkbasin 1"),
                placement,
                lamps);
    }

    static Room play(Room r, String... commands) {
        for (String c : commands) {
            Room.Result res = r.act(c);
            assertThat(res.admitted()).as(c).isTrue();
            r = res.room();
        }
        return r;
    }

    @Test
    void whatIsClosedIsNeitherSeenNorReachedUntilOpened() {
        Room r = kitchen();
        assertThat(r.admissible())
                .containsExactly(
                        "go to countertop 1",
                        "go to sidetable 1",
                        "go to cabinet 1",
                        "go to fridge 1",
                        "go to microwave 1",
                        "go to sinkbasin 1");
        Room.Result far = r.act("take apple 1 from cabinet 1");
        assertThat(far.admitted()).isFalse();
        assertThat(far.feedback()).isEqualTo(Room.NOTHING);
        assertThat(far.room()).isEqualTo(r);
        Room.Result arrive = r.act("go to cabinet 1");
        assertThat(arrive.feedback()).isEqualTo("You arrive at cabinet 1. The cabinet 1 is closed.");
        assertThat(arrive.room().admissible()).contains("open cabinet 1").noneMatch(a -> a.startsWith("take"));
        Room.Result open = arrive.room().act("open cabinet 1");
        assertThat(open.feedback()).isEqualTo("You open the cabinet 1. In the cabinet 1, you see a apple 1.");
        assertThat(open.room().admissible()).contains("take apple 1 from cabinet 1", "close cabinet 1");
        Room.Result take = open.room().act("take apple 1 from cabinet 1");
        assertThat(take.feedback()).isEqualTo("You pick up the apple 1 from the cabinet 1.");
        assertThat(take.room().holding()).isEqualTo("apple 1");
        assertThat(take.room().placement()).doesNotContainKey("apple 1");
        assertThat(take.room().admissible())
                .contains("put apple 1 in cabinet 1")
                .noneMatch(a -> a.startsWith("take"));
        assertThat(r.holding()).as("the first room is untouched").isEmpty();
    }

    @Test
    void appliancesCleanHeatAndCoolWhatAffordsIt() {
        Room r = play(
                kitchen(), "go to cabinet 1", "open cabinet 1", "take apple 1 from cabinet 1", "go to microwave 1");
        assertThat(r.admissible()).contains("heat apple 1 with microwave 1", "open microwave 1");
        Room hot = play(r, "heat apple 1 with microwave 1");
        assertThat(hot.hot()).containsExactly("apple 1");
        Room cooled = play(hot, "go to fridge 1", "cool apple 1 with fridge 1");
        assertThat(cooled.cool()).containsExactly("apple 1");
        assertThat(cooled.hot()).as("cooling undoes heating").isEmpty();
        Room washed = play(cooled, "go to sinkbasin 1", "clean apple 1 with sinkbasin 1");
        assertThat(washed.clean()).containsExactly("apple 1");
        Room knife = play(kitchen(), "go to countertop 1", "take knife 1 from countertop 1", "go to microwave 1");
        assertThat(knife.admissible()).as("a knife is not heated").noneMatch(a -> a.startsWith("heat"));
        assertThat(play(knife, "go to sinkbasin 1").admissible()).contains("clean knife 1 with sinkbasin 1");
    }

    @Test
    void aHotAppleInTheFridgeNeedsTheFridgeOpenAndCommandsAreForgivenTheirCaseAndSpacing() {
        Goal goal = new Goal(Goal.Type.HEAT_PLACE, "apple", "fridge");
        Room r = play(
                kitchen(),
                "go to cabinet 1",
                "open cabinet 1",
                "take apple 1 from cabinet 1",
                "go to microwave 1",
                "heat apple 1 with microwave 1",
                "  Go To   Fridge 1. ");
        assertThat(r.admissible()).doesNotContain("put apple 1 in fridge 1");
        assertThat(goal.satisfied(r)).isFalse();
        Room done = play(r, "open fridge 1", "put apple 1 on fridge 1");
        assertThat(done.placement()).containsEntry("apple 1", "fridge 1");
        assertThat(goal.satisfied(done)).isTrue();
        assertThat(new Goal(Goal.Type.COOL_PLACE, "apple", "fridge").satisfied(done))
                .isFalse();
        assertThat(new Goal(Goal.Type.PICK_PLACE, "apple", "fridge").satisfied(done))
                .isTrue();
        assertThat(goal.text()).isEqualTo("put a hot apple in fridge.");
    }

    @Test
    void lookingAtSomethingUnderTheLampNeedsItHeldWhereTheLampIsOn() {
        Goal goal = new Goal(Goal.Type.LOOK_IN_LIGHT, "book", "desklamp");
        Room r = play(kitchen(), "go to sidetable 1", "take book 1 from sidetable 1");
        assertThat(goal.satisfied(r)).isFalse();
        assertThat(r.admissible()).contains("use desklamp 1").noneMatch(a -> a.startsWith("take desklamp"));
        Room lit = play(r, "use desklamp 1");
        assertThat(goal.satisfied(lit)).isTrue();
        assertThat(goal.satisfied(play(lit, "go to countertop 1")))
                .as("away from the lamp")
                .isFalse();
    }

    @Test
    void twoObjectsMustShareOneReceptacle() {
        TreeMap<String, String> placement = new TreeMap<>();
        placement.put("cd 1", "cabinet 1");
        placement.put("cd 2", "cabinet 2");
        Room r = Room.start(List.of("countertop 1", "cabinet 1", "cabinet 2"), placement, Map.of());
        Goal two = new Goal(Goal.Type.PICK_TWO, "cd", "cabinet");
        assertThat(two.satisfied(r)).as("one in each cabinet").isFalse();
        Room done = play(
                r,
                "go to cabinet 2",
                "open cabinet 2",
                "take cd 2 from cabinet 2",
                "go to cabinet 1",
                "open cabinet 1",
                "put cd 2 in cabinet 1");
        assertThat(two.satisfied(done)).isTrue();
    }
}

package org.pettingllms.envs.household;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An episode's state: the room, the goal, the planner's latest sub-goal, the feedback of the last command, what the
 * agents have seen of each receptacle they stood at (their memory of the room), and the commands so far.
 *
 * @param seen each receptacle seen: its contents ({@code apple 1, knife 2}), {@code nothing}, or {@code closed}
 */
public record HouseholdState(
        Room room, Goal goal, String subgoal, String feedback, SortedMap<String, String> seen, int commands) {
    public HouseholdState {
        seen = Collections.unmodifiableSortedMap(new TreeMap<>(seen));
    }

    static HouseholdState start(Room room, Goal goal) {
        return new HouseholdState(room, goal, "", "You are in the middle of a room.", new TreeMap<>(), 0);
    }

    HouseholdState withSubgoal(String s) {
        return new HouseholdState(room, goal, s, feedback, seen, commands);
    }

    /** After a command: the new room and feedback, the receptacle it stands at seen as it is now. */
    HouseholdState after(Room.Result r) {
        TreeMap<String, String> s = new TreeMap<>(seen);
        Room next = r.room();
        if (!next.at().isEmpty()) {
            s.put(next.at(), summary(next, next.at()));
        }
        return new HouseholdState(next, goal, subgoal, r.feedback(), s, commands + 1);
    }

    static String summary(Room room, String receptacle) {
        if (!room.reachable(receptacle)) {
            return "closed";
        }
        var c = room.contents(receptacle);
        return c.isEmpty() ? "nothing" : String.join(", ", c);
    }
}

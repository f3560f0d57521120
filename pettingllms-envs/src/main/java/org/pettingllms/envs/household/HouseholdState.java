package org.pettingllms.envs.household;

import java.util.Collections;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An episode's state: the room, the goal, the planner's latest sub-goal, the feedback of the last command, what the
 * agents have seen of each receptacle they stood at (their memory of the room), and the commands so far.
 *
 * @param seen       each receptacle seen: its contents ({@code apple 1, knife 2}), {@code nothing}, or {@code closed}
 * @param lookedInto the receptacles whose inside has been shown at least once (a closed one only once opened)
 */
public record HouseholdState(
        Room room,
        Goal goal,
        String subgoal,
        String feedback,
        SortedMap<String, String> seen,
        SortedSet<String> lookedInto,
        int commands) {
    public HouseholdState {
        seen = Collections.unmodifiableSortedMap(new TreeMap<>(seen));
        lookedInto = Collections.unmodifiableSortedSet(new TreeSet<>(lookedInto));
    }

    static HouseholdState start(Room room, Goal goal) {
        return new HouseholdState(
                room, goal, "", "You are in the middle of a room.", new TreeMap<>(), new TreeSet<>(), 0);
    }

    HouseholdState withSubgoal(String s) {
        return new HouseholdState(room, goal, s, feedback, seen, lookedInto, commands);
    }

    /** After a command: the new room and feedback, the receptacle it stands at seen as it is now. */
    HouseholdState after(Room.Result r) {
        TreeMap<String, String> s = new TreeMap<>(seen);
        TreeSet<String> inside = new TreeSet<>(lookedInto);
        Room next = r.room();
        if (!next.at().isEmpty()) {
            s.put(next.at(), summary(next, next.at()));
            if (next.reachable(next.at())) {
                inside.add(next.at());
            }
        }
        return new HouseholdState(next, goal, subgoal, r.feedback(), s, inside, commands + 1);
    }

    /** Whether this state has looked into a receptacle that {@code before} had not. */
    boolean revealsMoreThan(HouseholdState before) {
        return lookedInto.size() > before.lookedInto.size();
    }

    static String summary(Room room, String receptacle) {
        if (!room.reachable(receptacle)) {
            return "closed";
        }
        var c = room.contents(receptacle);
        return c.isEmpty() ? "nothing" : String.join(", ", c);
    }
}

package org.pettingllms.envs.household;

import java.util.Comparator;
import java.util.Map;
import java.util.Optional;

/**
 * The omniscient expert (ALFWorld's is a planner over the room's full state): from any room it names the next
 * sub-goal (what the planner should write) and the next command (what the actor should do). It fetches the nearest
 * fitting object in the room's listing order, runs it through the appliance the goal needs, and puts it in the first
 * receptacle of the goal's kind (for two objects, the one that already holds the first); an object held that the goal
 * does not want is put down first. Its plan length is the shaping of the actor's reward and its answers are the
 * demonstrations.
 */
final class Expert {
    private Expert() {}

    /** A sub-goal ({@code find apple}, {@code take apple}, {@code heat apple}, {@code put apple in fridge}, ...). */
    record Next(String subgoal, String command) {}

    /** The next sub-goal and command, or empty when the goal holds or nothing fitting is left. */
    static Optional<Next> next(Room room, Goal goal) {
        if (goal.satisfied(room)) {
            return Optional.empty();
        }
        String held = room.holding();
        String object = goal.object();
        if (!held.isEmpty() && !Things.kind(held).equals(object)) {
            return putDown(room, held);
        }
        if (goal.type() == Goal.Type.LOOK_IN_LIGHT) {
            if (held.isEmpty()) {
                return obtain(room, goal);
            }
            Map.Entry<String, String> lamp = room.lamps().entrySet().iterator().next();
            String subgoal = "use " + Things.kind(lamp.getKey());
            return Optional.of(new Next(
                    subgoal, room.at().equals(lamp.getValue()) ? "use " + lamp.getKey() : "go to " + lamp.getValue()));
        }
        if (held.isEmpty()) {
            return obtain(room, goal);
        }
        String verb = goal.type().verb();
        if (verb != null && !goal.fits(room, held)) {
            String appliance = first(room, Things.applianceFor(verb));
            if (appliance == null) {
                return Optional.empty();
            }
            return Optional.of(new Next(
                    verb + " " + object,
                    room.at().equals(appliance) ? verb + " " + held + " with " + appliance : "go to " + appliance));
        }
        String target = target(room, goal);
        if (target == null) {
            return Optional.empty();
        }
        String subgoal = "put " + object + " " + Things.preposition(target) + " " + goal.receptacle();
        if (!room.at().equals(target)) {
            return Optional.of(new Next(subgoal, "go to " + target));
        }
        if (!room.reachable(target)) {
            return Optional.of(new Next(subgoal, "open " + target));
        }
        return Optional.of(new Next(subgoal, "put " + held + " " + Things.preposition(target) + " " + target));
    }

    /** Commands the expert needs from {@code room} to the goal, or {@code cap + 1} when it does not get there. */
    static int planLength(Room room, Goal goal, int cap) {
        Room r = room;
        for (int n = 0; n <= cap; n++) {
            if (goal.satisfied(r)) {
                return n;
            }
            Optional<Next> next = next(r, goal);
            if (next.isEmpty()) {
                return cap + 1;
            }
            Room.Result res = r.act(next.get().command());
            if (!res.admitted()) {
                throw new IllegalStateException(
                        "the expert's command was refused: " + next.get().command());
            }
            r = res.room();
        }
        return cap + 1;
    }

    private static Optional<Next> putDown(Room room, String held) {
        String subgoal = "put down " + Things.kind(held);
        if (room.at().isEmpty()) {
            return Optional.of(new Next(subgoal, "go to " + room.receptacles().get(0)));
        }
        if (!room.reachable(room.at())) {
            return Optional.of(new Next(subgoal, "open " + room.at()));
        }
        return Optional.of(new Next(subgoal, "put " + held + " " + Things.preposition(room.at()) + " " + room.at()));
    }

    /** Fetch the first fitting object not already where the goal wants it. */
    private static Optional<Next> obtain(Room room, Goal goal) {
        String target = goal.type() == Goal.Type.PICK_TWO ? target(room, goal) : null;
        Optional<Map.Entry<String, String>> pick = room.placement().entrySet().stream()
                .filter(e -> Things.kind(e.getKey()).equals(goal.object()))
                .filter(e -> !e.getValue().equals(target)) // the first of two, already placed, stays
                .min(Comparator.comparingInt((Map.Entry<String, String> e) ->
                                room.receptacles().indexOf(e.getValue()))
                        .thenComparing(Map.Entry::getKey));
        if (pick.isEmpty()) {
            return Optional.empty();
        }
        String o = pick.get().getKey();
        String where = pick.get().getValue();
        if (!room.at().equals(where)) {
            return Optional.of(new Next("find " + goal.object(), "go to " + where));
        }
        if (!room.reachable(where)) {
            return Optional.of(new Next("find " + goal.object(), "open " + where));
        }
        return Optional.of(new Next("take " + goal.object(), "take " + o + " from " + where));
    }

    /** Where the goal's objects go: the first receptacle of the kind, or for two the one already holding one. */
    private static String target(Room room, Goal goal) {
        if (goal.type() == Goal.Type.PICK_TWO) {
            for (String r : room.receptacles()) {
                if (Things.kind(r).equals(goal.receptacle())
                        && room.contents(r).stream().anyMatch(o -> goal.fits(room, o))) {
                    return r;
                }
            }
        }
        return first(room, goal.receptacle());
    }

    private static String first(Room room, String kind) {
        return room.receptacles().stream()
                .filter(r -> Things.kind(r).equals(kind))
                .findFirst()
                .orElse(null);
    }
}

package org.pettingllms.envs.household;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * What the planner and the actor read. Both see the task, where the agent stands and what it holds (with what has been
 * done to it), what they have seen of each receptacle so far, and the last command's feedback; the actor also sees
 * the receptacles not gone to yet (the memory's complement, in the room's order, so that exploring is copying the first
 * of them), the planner's sub-goal (when there is a planner) and the commands the room admits. Compact (small models):
 * <pre>
 *   household-v1 actor
 *   task: put a hot apple in fridge.
 *   at: countertop 1. holding: apple 1 (hot).
 *   seen: cabinet 1: closed | countertop 1: knife 2
 *   unseen: drawer 1 | fridge 1 | microwave 1
 *   last: You heat the apple 1 using the microwave 1.
 *   plan: put apple in fridge
 *   actions: go to cabinet 1 | go to fridge 1 | put apple 1 on countertop 1
 *   >
 * </pre>
 */
final class HouseholdPrompts {
    static final String PLANNER_SYSTEM =
            "You plan for a household robot. Each turn, write the next sub-goal on one line:"
                    + " find X, take X, clean X, heat X, cool X, use desklamp, put X in R (or on R), or put down X, where X is"
                    + " an object kind and R a receptacle kind.";
    static final String ACTOR_SYSTEM = "You control a household robot. Each turn, answer with exactly one of the"
            + " admissible commands, copied as written.";

    private HouseholdPrompts() {}

    static Prompt of(String taskId, HouseholdState s, String role, boolean withPlan, PromptStyle style) {
        List<String> lines = lines(s, role, withPlan);
        if (style == PromptStyle.COMPACT) {
            StringBuilder sb = CompactPrompts.header(taskId, role);
            lines.forEach(l -> sb.append(l).append('\n'));
            return CompactPrompts.cue(sb);
        }
        String ask = role.equals(HouseholdTask.PLANNER)
                ? "Write the next sub-goal."
                : "Write the next command, one of the admissible ones.";
        return Prompt.chat(
                role.equals(HouseholdTask.PLANNER) ? PLANNER_SYSTEM : ACTOR_SYSTEM,
                String.join("\n", lines) + "\n\n" + ask);
    }

    static List<String> lines(HouseholdState s, String role, boolean withPlan) {
        Room room = s.room();
        List<String> out = new ArrayList<>();
        out.add("task: " + s.goal().text());
        out.add("at: " + (room.at().isEmpty() ? "the middle of the room" : room.at()) + ". holding: " + holding(room)
                + ".");
        List<String> seen = new ArrayList<>();
        for (Map.Entry<String, String> e : s.seen().entrySet()) {
            seen.add(e.getKey() + ": " + e.getValue());
        }
        out.add("seen: " + (seen.isEmpty() ? "nothing yet" : String.join(" | ", seen)));
        if (role.equals(HouseholdTask.ACTOR)) {
            List<String> unseen = unseen(s);
            out.add("unseen: " + (unseen.isEmpty() ? "nothing" : String.join(" | ", unseen)));
        }
        out.add("last: " + s.feedback());
        if (role.equals(HouseholdTask.ACTOR)) {
            if (withPlan) {
                out.add("plan: " + (s.subgoal().isEmpty() ? "none" : s.subgoal()));
            }
            out.add("actions: " + String.join(" | ", room.admissible()));
        }
        return out;
    }

    /**
     * The receptacles not gone to yet (absent from the memory; a closed one stood at is in it, as {@code closed}), in
     * the room's order (the order of its {@code go to} commands).
     */
    static List<String> unseen(HouseholdState s) {
        return s.room().receptacles().stream()
                .filter(r -> !s.seen().containsKey(r))
                .toList();
    }

    /** What is held and what has been done to it: {@code apple 1 (clean, hot)}, or {@code nothing}. */
    static String holding(Room room) {
        String h = room.holding();
        if (h.isEmpty()) {
            return "nothing";
        }
        List<String> done = new ArrayList<>();
        if (room.clean().contains(h)) {
            done.add("clean");
        }
        if (room.hot().contains(h)) {
            done.add("hot");
        }
        if (room.cool().contains(h)) {
            done.add("cool");
        }
        return done.isEmpty() ? h : h + " (" + String.join(", ", done) + ")";
    }
}

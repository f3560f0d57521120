package org.pettingllms.envs.household;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;

/**
 * The scripted team: it plays from what a prompt shows (the task, where it stands, what it holds, what it has seen,
 * the admissible commands), never from hidden state, so it must explore: it goes to the receptacles it has not seen, in
 * the order the room lists them, and opens what is closed. The planner writes the sub-goal the situation calls for;
 * the actor carries out the plan line (or, alone, its own sub-goal). With probability {@code 1 - skill} an answer is
 * random instead: a random admissible command, or a sub-goal about a random object.
 */
final class HouseholdScripted {
    private HouseholdScripted() {}

    static TextPolicy policy(String taskId, double skill) {
        if (skill < 0 || skill > 1) {
            throw new IllegalArgumentException("skill must be in [0, 1], got " + skill);
        }
        return (ref, prompt, rng) -> {
            View v = View.parse(prompt.text());
            boolean wrong = rng.nextDouble() >= skill;
            if (v.actions().isEmpty() && !v.isActor()) {
                return wrong ? "find " + randomKind(rng) : subgoal(v);
            }
            if (wrong) {
                return v.actions().isEmpty()
                        ? "look"
                        : v.actions().get(rng.nextInt(v.actions().size()));
            }
            String plan = v.plan().isEmpty() || v.plan().equals("none") ? subgoal(v) : v.plan();
            return command(v, plan);
        };
    }

    private static String randomKind(SplittableRandom rng) {
        List<String> kinds = Things.OBJECTS.keySet().stream().sorted().toList();
        return kinds.get(rng.nextInt(kinds.size()));
    }

    /** What a prompt shows, read back from its lines. */
    record View(
            Goal goal,
            String at,
            String held,
            List<String> flags,
            Map<String, String> seen,
            List<String> unseen,
            String plan,
            List<String> actions,
            boolean isActor) {
        static View parse(String text) {
            Goal goal = null;
            String at = "";
            String held = "";
            List<String> flags = new ArrayList<>();
            Map<String, String> seen = new LinkedHashMap<>();
            List<String> unseen = List.of();
            String plan = "";
            List<String> actions = new ArrayList<>();
            boolean actor = false;
            for (String line : text.split("\n")) {
                if (line.startsWith("task: ")) {
                    goal = goal(line.substring(6).strip());
                } else if (line.startsWith("at: ")) {
                    int h = line.indexOf(". holding: ");
                    at = line.substring(4, h);
                    at = at.equals("the middle of the room") ? "" : at;
                    String hold = line.substring(h + ". holding: ".length(), line.length() - 1);
                    int paren = hold.indexOf(" (");
                    if (paren > 0) {
                        flags = List.of(
                                hold.substring(paren + 2, hold.length() - 1).split(", "));
                        hold = hold.substring(0, paren);
                    }
                    held = hold.equals("nothing") ? "" : hold;
                } else if (line.startsWith("seen: ") && !line.equals("seen: nothing yet")) {
                    for (String part : line.substring(6).split(" \\| ")) {
                        int colon = part.indexOf(": ");
                        seen.put(part.substring(0, colon), part.substring(colon + 2));
                    }
                } else if (line.startsWith("unseen: ") && !line.equals("unseen: nothing")) {
                    unseen = List.of(line.substring(8).split(" \\| "));
                } else if (line.startsWith("plan: ")) {
                    plan = line.substring(6).strip();
                } else if (line.startsWith("actions: ")) {
                    actor = true;
                    actions = List.of(line.substring(9).split(" \\| "));
                }
            }
            if (goal == null) {
                throw new IllegalArgumentException("not a household prompt: no task line");
            }
            return new View(goal, at, held, flags, seen, unseen, plan, actions, actor);
        }

        static Goal goal(String text) {
            String t = text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
            String[] w = t.split(" ");
            if (t.startsWith("look at a ")) {
                return new Goal(Goal.Type.LOOK_IN_LIGHT, w[3], w[w.length - 1]);
            }
            if (t.startsWith("put two ")) {
                return new Goal(Goal.Type.PICK_TWO, w[2], w[4]);
            }
            return switch (w[2]) {
                case "clean" -> new Goal(Goal.Type.CLEAN_PLACE, w[3], w[5]);
                case "hot" -> new Goal(Goal.Type.HEAT_PLACE, w[3], w[5]);
                case "cool" -> new Goal(Goal.Type.COOL_PLACE, w[3], w[5]);
                default -> new Goal(Goal.Type.PICK_PLACE, w[2], w[4]);
            };
        }

        /** The first receptacle seen holding an object of the kind (for two objects: not one of the goal's kind). */
        String seenWith(String kind) {
            for (Map.Entry<String, String> e : seen.entrySet()) {
                boolean target = goal.type() == Goal.Type.PICK_TWO
                        && Things.kind(e.getKey()).equals(goal.receptacle());
                if (!target
                        && List.of(e.getValue().split(", ")).stream()
                                .anyMatch(o -> Things.kind(o).equals(kind))) {
                    return e.getKey();
                }
            }
            return null;
        }
    }

    /** The sub-goal the situation calls for. */
    static String subgoal(View v) {
        Goal g = v.goal();
        String x = g.object();
        if (!v.held().isEmpty() && !Things.kind(v.held()).equals(x)) {
            return "put down " + Things.kind(v.held());
        }
        if (v.held().isEmpty()) {
            String where = v.seenWith(x);
            return where != null && where.equals(v.at()) ? "take " + x : "find " + x;
        }
        if (g.type() == Goal.Type.LOOK_IN_LIGHT) {
            return "use " + Things.LAMP;
        }
        String verb = g.type().verb();
        if (verb != null
                && !v.flags().contains(verb.equals("clean") ? "clean" : verb.equals("heat") ? "hot" : "cool")) {
            return verb + " " + x;
        }
        return "put " + x + " " + (Things.CONTAINERS.contains(g.receptacle()) ? "in" : "on") + " " + g.receptacle();
    }

    /** The command that carries a sub-goal out from where the agent stands. */
    static String command(View v, String plan) {
        String[] w = plan.split(" ");
        String verb = w[0];
        if (plan.startsWith("put down ")) {
            return first(v, "put ", "open " + v.at(), "go to ");
        }
        return switch (verb) {
            case "find", "take" -> find(v, w[w.length - 1]);
            case "clean", "heat", "cool" -> first(v, verb + " ", "go to " + Things.applianceFor(verb) + " ");
            case "use" -> {
                String use = firstOrNull(v, "use ");
                if (use != null) {
                    yield use;
                }
                String stand = v.seenWith(Things.LAMP);
                yield stand != null && !stand.equals(v.at()) ? "go to " + stand : explore(v);
            }
            case "put" -> {
                String kind = w[w.length - 1];
                if (Things.kind(v.at()).equals(kind)) {
                    yield first(v, "put ", "open " + v.at());
                }
                String toward = null;
                if (v.goal().type() == Goal.Type.PICK_TWO) { // to the one that already holds the first
                    for (Map.Entry<String, String> e : v.seen().entrySet()) {
                        if (Things.kind(e.getKey()).equals(kind)
                                && e.getValue().contains(v.goal().object() + " ")) {
                            toward = "go to " + e.getKey();
                        }
                    }
                }
                yield toward != null && v.actions().contains(toward) ? toward : first(v, "go to " + kind + " ");
            }
            default -> explore(v);
        };
    }

    private static String find(View v, String kind) {
        String where = v.seenWith(kind);
        if (where == null) {
            return explore(v);
        }
        if (!where.equals(v.at())) {
            return "go to " + where;
        }
        return first(v, "take " + kind + " ", "open " + where, "go to ");
    }

    /** Open where it stands if closed, else go to the first receptacle not seen yet (the {@code unseen:} line's first). */
    private static String explore(View v) {
        if (!v.at().isEmpty() && "closed".equals(v.seen().get(v.at()))) {
            return "open " + v.at();
        }
        if (!v.unseen().isEmpty()) {
            return "go to " + v.unseen().get(0);
        }
        return v.actions().isEmpty() ? "look" : v.actions().get(0);
    }

    /** The first admissible command that starts with one of the prefixes, tried in order; else exploring. */
    private static String first(View v, String... prefixes) {
        String a = firstOrNull(v, prefixes);
        return a != null ? a : explore(v);
    }

    private static String firstOrNull(View v, String... prefixes) {
        for (String p : prefixes) {
            for (String a : v.actions()) {
                if (a.startsWith(p) || a.equals(p.strip())) {
                    return a;
                }
            }
        }
        return null;
    }
}

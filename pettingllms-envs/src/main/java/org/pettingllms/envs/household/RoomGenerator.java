package org.pettingllms.envs.household;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.util.Seeds;

/**
 * Procedural rooms and goals. A room has a counter top, a dining table, a fridge, a microwave and a sink basin, one
 * to {@code cabinets} cabinets, up to {@code drawers} drawers, and by chance a shelf, a side table, a desk and a
 * garbage can; a lamp stands on the side table or desk when there is one (always for a look-in-light goal). The goal's
 * objects start anywhere but in a receptacle of the goal's kind, with distractor objects of other kinds; what opens
 * starts closed; the agent starts in the middle of the room, holding nothing.
 *
 * <p>Splits by content as well as by seed: a goal is a (type, object kind, receptacle kind) combination, and one in five
 * combinations (by a fixed hash) is held out: only test problems use them, so a test score is on goals no training
 * or validation problem had (ALFWorld's unseen split, in goals rather than rooms).
 */
final class RoomGenerator {
    private RoomGenerator() {}

    /** A generated problem: the room as it starts and the goal. */
    record Generated(Room room, Goal goal) {}

    /**
     * @param cabinets    most cabinets (at least one is made)
     * @param drawers     most drawers
     * @param distractors most objects of other kinds than the goal's (at least one)
     */
    record Sizes(int cabinets, int drawers, int distractors) {
        Sizes {
            if (cabinets < 1 || drawers < 0 || distractors < 1 || cabinets > 5 || drawers > 5 || distractors > 12) {
                throw new IllegalArgumentException("need 1 <= cabinets <= 5, 0 <= drawers <= 5 and 1 <= distractors"
                        + " <= 12, got " + cabinets + ", " + drawers + ", " + distractors);
            }
        }
    }

    /** Whether a goal combination is held out for the test split. */
    static boolean heldOut(Goal.Type type, String object, String receptacle) {
        return Math.floorMod(Seeds.derive(0x40E5E401DL, type.name(), object, receptacle), 5) == 0;
    }

    static Generated generate(long seed, ProblemSource.Split split, Sizes sizes) {
        SplittableRandom rng = new SplittableRandom(seed);
        boolean test = split == ProblemSource.Split.TEST;
        for (int attempt = 0; attempt < 1000; attempt++) {
            Generated g = attempt(rng, sizes, test);
            if (g != null) {
                return g;
            }
        }
        throw new IllegalStateException("no room for seed " + seed + " after 1000 attempts");
    }

    private static Generated attempt(SplittableRandom rng, Sizes sizes, boolean test) {
        Goal.Type type = Goal.Type.values()[rng.nextInt(Goal.Type.values().length)];
        List<String> kinds = new ArrayList<>(List.of("countertop", "diningtable", "fridge", "microwave", "sinkbasin"));
        for (String optional : List.of("shelf", "sidetable", "desk", "garbagecan")) {
            if (rng.nextInt(2) == 0) {
                kinds.add(optional);
            }
        }
        boolean lamp = type == Goal.Type.LOOK_IN_LIGHT || rng.nextInt(2) == 0;
        if (lamp && kinds.stream().noneMatch(Things.LAMP_STANDS::contains)) {
            kinds.add("sidetable");
        }
        List<String> receptacles = new ArrayList<>();
        for (String k : Things.RECEPTACLES) {
            int n = k.equals("cabinet")
                    ? 1 + rng.nextInt(sizes.cabinets())
                    : k.equals("drawer") ? rng.nextInt(sizes.drawers() + 1) : kinds.contains(k) ? 1 : 0;
            for (int i = 1; i <= n; i++) {
                receptacles.add(k + " " + i);
            }
        }
        List<String> objects = candidates(type);
        String object = objects.get(rng.nextInt(objects.size()));
        String receptacle;
        if (type == Goal.Type.LOOK_IN_LIGHT) {
            receptacle = Things.LAMP;
        } else {
            List<String> present =
                    receptacles.stream().map(Things::kind).distinct().toList();
            receptacle = present.get(rng.nextInt(present.size()));
        }
        if (heldOut(type, object, receptacle) != test) {
            return null;
        }
        Map<String, Integer> numbers = new HashMap<>();
        TreeMap<String, String> placement = new TreeMap<>();
        List<String> away = receptacles.stream()
                .filter(r -> !Things.kind(r).equals(receptacle))
                .toList();
        int copies = (type == Goal.Type.PICK_TWO ? 2 : 1) + (rng.nextInt(3) == 0 ? 1 : 0);
        for (int i = 0; i < copies; i++) {
            placement.put(name(object, numbers), away.get(rng.nextInt(away.size())));
        }
        List<String> others =
                new ArrayList<>(Things.OBJECTS.keySet().stream().sorted().toList());
        others.remove(object);
        int distractors = 1 + rng.nextInt(sizes.distractors());
        for (int i = 0; i < distractors; i++) {
            String kind = others.get(rng.nextInt(others.size()));
            placement.put(name(kind, numbers), receptacles.get(rng.nextInt(receptacles.size())));
        }
        TreeMap<String, String> lamps = new TreeMap<>();
        if (lamp) {
            String stand = receptacles.stream()
                    .filter(r -> Things.LAMP_STANDS.contains(Things.kind(r)))
                    .findFirst()
                    .orElseThrow();
            lamps.put(Things.LAMP + " 1", stand);
        }
        Room room = Room.start(receptacles, placement, lamps);
        Goal goal = new Goal(type, object, receptacle);
        if (goal.satisfied(room) || Expert.planLength(room, goal, 40) > 40) {
            return null;
        }
        return new Generated(room, goal);
    }

    /** The object kinds a goal type can ask for. */
    static List<String> candidates(Goal.Type type) {
        if (type == Goal.Type.LOOK_IN_LIGHT) {
            return Things.LOOKABLE;
        }
        String verb = type.verb();
        return Things.OBJECTS.entrySet().stream()
                .filter(e -> verb == null || e.getValue().contains(verb))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }

    private static String name(String kind, Map<String, Integer> numbers) {
        return kind + " " + numbers.merge(kind, 1, Integer::sum);
    }
}

package org.pettingllms.envs.household;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A household room as an immutable value, and its rules ({@link #act}). The agent stands at one receptacle (or in the
 * middle of the room at the start), holds at most one object, and acts with ALFWorld's commands:
 * <pre>
 *   go to R | open R | close R | take O from R | put O in/on R | clean O with R | heat O with R | cool O with R | use L
 * </pre>
 * Reaching into a receptacle (take, put, seeing inside) needs it open when it opens; cleaning, heating and cooling need
 * the agent at the sink basin, microwave or fridge holding an object that affords it; a lamp is used at its stand and
 * stays on. A command that the room does not admit changes nothing ("Nothing happens.").
 *
 * @param receptacles every receptacle, in the order the room lists them
 * @param placement   where each object not held is
 * @param holding     the held object, or empty
 * @param at          the receptacle the agent is at, or empty (the middle of the room)
 * @param opened      the open receptacles among those that open
 * @param clean       objects that have been cleaned
 * @param hot         objects that have been heated
 * @param cool        objects that have been cooled
 * @param lamps       each lamp and the receptacle it stands on (lamps are not taken)
 * @param lampsOn     lamps turned on
 */
public record Room(
        List<String> receptacles,
        SortedMap<String, String> placement,
        String holding,
        String at,
        SortedSet<String> opened,
        SortedSet<String> clean,
        SortedSet<String> hot,
        SortedSet<String> cool,
        SortedMap<String, String> lamps,
        SortedSet<String> lampsOn) {
    public Room {
        receptacles = List.copyOf(receptacles);
        placement = Collections.unmodifiableSortedMap(new TreeMap<>(placement));
        opened = sorted(opened);
        clean = sorted(clean);
        hot = sorted(hot);
        cool = sorted(cool);
        lamps = Collections.unmodifiableSortedMap(new TreeMap<>(lamps));
        lampsOn = sorted(lampsOn);
        for (String r : placement.values()) {
            if (!receptacles.contains(r)) {
                throw new IllegalArgumentException("an object is in " + r + ", which the room does not have");
            }
        }
        if (!at.isEmpty() && !receptacles.contains(at)) {
            throw new IllegalArgumentException("the agent is at " + at + ", which the room does not have");
        }
        if (!holding.isEmpty() && placement.containsKey(holding)) {
            throw new IllegalArgumentException(holding + " is both held and placed");
        }
    }

    /** What a command did: the room after it, the feedback the agent reads, and whether the room admitted it. */
    public record Result(Room room, String feedback, boolean admitted) {}

    public static final String NOTHING = "Nothing happens.";

    /**
     * A room as an episode starts: the agent in the middle of it, holding nothing, everything that opens closed,
     * nothing cleaned, heated or cooled, every lamp off.
     */
    public static Room start(List<String> receptacles, Map<String, String> placement, Map<String, String> lamps) {
        return new Room(
                receptacles,
                new TreeMap<>(placement),
                "",
                "",
                new TreeSet<>(),
                new TreeSet<>(),
                new TreeSet<>(),
                new TreeSet<>(),
                new TreeMap<>(lamps),
                new TreeSet<>());
    }

    private static SortedSet<String> sorted(Set<String> s) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(s));
    }

    /** Objects in or on a receptacle (lamps included), sorted. */
    public List<String> contents(String receptacle) {
        List<String> out = new ArrayList<>();
        placement.forEach((o, r) -> {
            if (r.equals(receptacle)) {
                out.add(o);
            }
        });
        lamps.forEach((l, r) -> {
            if (r.equals(receptacle)) {
                out.add(l);
            }
        });
        Collections.sort(out);
        return out;
    }

    /** Whether what is in the receptacle can be seen and reached: it does not open, or it is open. */
    public boolean reachable(String receptacle) {
        return !Things.openable(receptacle) || opened.contains(receptacle);
    }

    /** What the agent sees of a receptacle it is at: its contents when reachable, else that it is closed. */
    public String look(String receptacle) {
        if (!reachable(receptacle)) {
            return "The " + receptacle + " is closed.";
        }
        List<String> c = contents(receptacle);
        String where = (Things.CONTAINERS.contains(Things.kind(receptacle)) ? "In" : "On") + " the " + receptacle;
        if (c.isEmpty()) {
            return where + ", you see nothing.";
        }
        StringBuilder sb = new StringBuilder(where).append(", you see ");
        for (int i = 0; i < c.size(); i++) {
            sb.append(i == 0 ? "" : i == c.size() - 1 ? ", and " : ", ")
                    .append("a ")
                    .append(c.get(i));
        }
        return sb.append('.').toString();
    }

    /** The commands the room admits now, in a fixed order: moves, then what can be done where the agent is. */
    public List<String> admissible() {
        List<String> out = new ArrayList<>();
        for (String r : receptacles) {
            if (!r.equals(at)) {
                out.add("go to " + r);
            }
        }
        if (at.isEmpty()) {
            return out;
        }
        if (Things.openable(at)) {
            out.add((opened.contains(at) ? "close " : "open ") + at);
        }
        if (reachable(at)) {
            if (holding.isEmpty()) {
                placement.forEach((o, r) -> {
                    if (r.equals(at)) {
                        out.add("take " + o + " from " + at);
                    }
                });
            } else {
                out.add("put " + holding + " " + Things.preposition(at) + " " + at);
            }
        }
        String verb = Things.APPLIANCES.get(Things.kind(at));
        if (verb != null && !holding.isEmpty() && affords(holding, verb)) {
            out.add(verb + " " + holding + " with " + at);
        }
        lamps.forEach((l, r) -> {
            if (r.equals(at)) {
                out.add("use " + l);
            }
        });
        return out;
    }

    static boolean affords(String object, String verb) {
        return Things.OBJECTS.getOrDefault(Things.kind(object), Set.of()).contains(verb);
    }

    /**
     * Applies a command, written as {@link #admissible} writes it (case, spaces and a final period are forgiven, and
     * {@code put} takes {@code in}, {@code on} or {@code in/on}).
     */
    public Result act(String command) {
        String c = normalise(command);
        if (!admissible().contains(c)) {
            return new Result(this, NOTHING, false);
        }
        String[] w = c.split(" ");
        return switch (w[0]) {
            case "go" -> {
                String r = c.substring("go to ".length());
                Room next = with(placement, holding, r, opened, clean, hot, cool, lampsOn);
                yield new Result(next, "You arrive at " + r + ". " + next.look(r), true);
            }
            case "open" -> {
                Room next = with(placement, holding, at, plus(opened, at), clean, hot, cool, lampsOn);
                String inside = next.look(at);
                yield new Result(next, "You open the " + at + ". " + inside, true);
            }
            case "close" ->
                new Result(
                        with(placement, holding, at, minus(opened, at), clean, hot, cool, lampsOn),
                        "You close the " + at + ".",
                        true);
            case "take" -> {
                String o = c.substring("take ".length(), c.indexOf(" from "));
                TreeMap<String, String> p = new TreeMap<>(placement);
                p.remove(o);
                yield new Result(
                        with(p, o, at, opened, clean, hot, cool, lampsOn),
                        "You pick up the " + o + " from the " + at + ".",
                        true);
            }
            case "put" -> {
                TreeMap<String, String> p = new TreeMap<>(placement);
                p.put(holding, at);
                yield new Result(
                        with(p, "", at, opened, clean, hot, cool, lampsOn),
                        "You put the " + holding + " " + Things.preposition(at) + " the " + at + ".",
                        true);
            }
            case "clean" ->
                new Result(
                        with(placement, holding, at, opened, plus(clean, holding), hot, cool, lampsOn),
                        "You clean the " + holding + " using the " + at + ".",
                        true);
            case "heat" ->
                new Result(
                        with(placement, holding, at, opened, clean, plus(hot, holding), minus(cool, holding), lampsOn),
                        "You heat the " + holding + " using the " + at + ".",
                        true);
            case "cool" ->
                new Result(
                        with(placement, holding, at, opened, clean, minus(hot, holding), plus(cool, holding), lampsOn),
                        "You cool the " + holding + " using the " + at + ".",
                        true);
            case "use" -> {
                String l = c.substring("use ".length());
                yield new Result(
                        with(placement, holding, at, opened, clean, hot, cool, plus(lampsOn, l)),
                        "You turn on the " + l + ".",
                        true);
            }
            default -> throw new IllegalStateException("admitted an unknown command: " + c);
        };
    }

    /** A command in the form {@link #admissible} writes it. */
    static String normalise(String command) {
        String c = command.strip().toLowerCase(java.util.Locale.ROOT).replaceAll("\\s+", " ");
        while (c.endsWith(".")) {
            c = c.substring(0, c.length() - 1).strip();
        }
        if (c.startsWith("put ")) {
            c = c.replace(" in/on ", " " + "\u0000" + " ")
                    .replace(" on ", " \u0000 ")
                    .replace(" in ", " \u0000 ");
            int mark = c.indexOf('\u0000');
            if (mark > 0) {
                String target = c.substring(mark + 1).strip();
                c = c.substring(0, mark) + Things.preposition(target) + " " + target;
            }
        }
        return c;
    }

    /** This room's layout and lamps with the rest given (the constructor takes its own sorted copies). */
    private Room with(
            SortedMap<String, String> placement,
            String holding,
            String at,
            SortedSet<String> opened,
            SortedSet<String> clean,
            SortedSet<String> hot,
            SortedSet<String> cool,
            SortedSet<String> lampsOn) {
        return new Room(receptacles, placement, holding, at, opened, clean, hot, cool, lamps, lampsOn);
    }

    private static SortedSet<String> plus(Set<String> s, String x) {
        TreeSet<String> out = new TreeSet<>(s);
        out.add(x);
        return out;
    }

    private static SortedSet<String> minus(Set<String> s, String x) {
        TreeSet<String> out = new TreeSet<>(s);
        out.remove(x);
        return out;
    }
}

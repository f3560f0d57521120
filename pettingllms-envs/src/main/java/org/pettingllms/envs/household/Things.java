package org.pettingllms.envs.household;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The household world's vocabulary, after ALFWorld's public description: receptacles (some open and close, three are
 * appliances that clean, heat or cool what is held at them), objects of kinds that afford some of those, and lamps that
 * stand on a receptacle and are turned on. Names are a kind and a number: {@code cabinet 2}, {@code apple 1}.
 */
final class Things {
    private Things() {}

    /** Receptacles that are closed until opened; what is in them is seen and reached only when open. */
    static final Set<String> OPENABLE = Set.of("cabinet", "drawer", "fridge", "microwave");

    /** Receptacles things go in (the rest: on). */
    static final Set<String> CONTAINERS = Set.of("cabinet", "drawer", "fridge", "microwave", "sinkbasin", "garbagecan");

    /** Appliances: the receptacle kind and the verb it does to a held object. */
    static final Map<String, String> APPLIANCES = Map.of("sinkbasin", "clean", "microwave", "heat", "fridge", "cool");

    /** The appliance kind that does {@code verb} (clean, heat, cool): {@code sinkbasin}, {@code microwave}, {@code fridge}. */
    static String applianceFor(String verb) {
        return APPLIANCES.entrySet().stream()
                .filter(e -> e.getValue().equals(verb))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no appliance does '" + verb + "'"));
    }

    /** Every receptacle kind a room may have, in the order rooms list them. */
    static final List<String> RECEPTACLES = List.of(
            "countertop",
            "diningtable",
            "shelf",
            "sidetable",
            "desk",
            "cabinet",
            "drawer",
            "fridge",
            "microwave",
            "sinkbasin",
            "garbagecan");

    /** Receptacle kinds a lamp stands on. */
    static final List<String> LAMP_STANDS = List.of("sidetable", "desk");

    static final String LAMP = "desklamp";

    /** Object kinds and what can be done to them (clean, heat, cool); every object can be taken and put. */
    static final Map<String, Set<String>> OBJECTS = Map.ofEntries(
            Map.entry("apple", Set.of("clean", "heat", "cool")),
            Map.entry("potato", Set.of("clean", "heat", "cool")),
            Map.entry("tomato", Set.of("clean", "heat", "cool")),
            Map.entry("egg", Set.of("clean", "heat", "cool")),
            Map.entry("mug", Set.of("clean", "heat", "cool")),
            Map.entry("cup", Set.of("clean", "heat", "cool")),
            Map.entry("plate", Set.of("clean", "heat", "cool")),
            Map.entry("bread", Set.of("heat", "cool")),
            Map.entry("lettuce", Set.of("clean", "cool")),
            Map.entry("bowl", Set.of("clean", "cool")),
            Map.entry("pan", Set.of("clean", "cool")),
            Map.entry("knife", Set.of("clean")),
            Map.entry("fork", Set.of("clean")),
            Map.entry("spoon", Set.of("clean")),
            Map.entry("book", Set.of()),
            Map.entry("cd", Set.of()),
            Map.entry("pen", Set.of()),
            Map.entry("keychain", Set.of()),
            Map.entry("creditcard", Set.of()),
            Map.entry("cellphone", Set.of()),
            Map.entry("alarmclock", Set.of()),
            Map.entry("vase", Set.of()));

    /** Object kinds one looks at under a lamp (small things one holds up to the light). */
    static final List<String> LOOKABLE =
            List.of("book", "cd", "pen", "keychain", "creditcard", "cellphone", "alarmclock", "vase", "mug", "bowl");

    /** The kind of a name: {@code cabinet 2} -> {@code cabinet}. */
    static String kind(String name) {
        int space = name.lastIndexOf(' ');
        return space < 0 ? name : name.substring(0, space);
    }

    /** The preposition of putting into / onto a receptacle. */
    static String preposition(String receptacle) {
        return CONTAINERS.contains(kind(receptacle)) ? "in" : "on";
    }

    static boolean openable(String receptacle) {
        return OPENABLE.contains(kind(receptacle));
    }
}

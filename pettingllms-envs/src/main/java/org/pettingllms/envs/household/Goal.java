package org.pettingllms.envs.household;

import java.util.Map;

/**
 * One of ALFWorld's six task types, over object and receptacle kinds: any object of the kind counts, any receptacle
 * of the kind (two objects of the kind in one receptacle for {@link Type#PICK_TWO}).
 *
 * @param object     the object kind ({@code apple})
 * @param receptacle the receptacle kind ({@code fridge}); for {@link Type#LOOK_IN_LIGHT} the lamp kind
 */
public record Goal(Type type, String object, String receptacle) {
    public enum Type {
        PICK_PLACE,
        LOOK_IN_LIGHT,
        CLEAN_PLACE,
        HEAT_PLACE,
        COOL_PLACE,
        PICK_TWO;

        /** The appliance verb the object needs first (clean, heat, cool), or null. */
        String verb() {
            return switch (this) {
                case CLEAN_PLACE -> "clean";
                case HEAT_PLACE -> "heat";
                case COOL_PLACE -> "cool";
                default -> null;
            };
        }
    }

    /** The task as the agents read it: {@code put a hot apple in fridge.} */
    public String text() {
        String prep = Things.CONTAINERS.contains(receptacle) ? "in" : "on";
        return switch (type) {
            case PICK_PLACE -> "put a " + object + " " + prep + " " + receptacle + ".";
            case LOOK_IN_LIGHT -> "look at a " + object + " under the " + receptacle + ".";
            case CLEAN_PLACE -> "put a clean " + object + " " + prep + " " + receptacle + ".";
            case HEAT_PLACE -> "put a hot " + object + " " + prep + " " + receptacle + ".";
            case COOL_PLACE -> "put a cool " + object + " " + prep + " " + receptacle + ".";
            case PICK_TWO -> "put two " + object + " " + prep + " " + receptacle + ".";
        };
    }

    /** Whether an object counts: its kind, and the state the goal asks for. */
    boolean fits(Room room, String o) {
        if (!Things.kind(o).equals(object)) {
            return false;
        }
        String verb = type.verb();
        return verb == null
                || (verb.equals("clean") && room.clean().contains(o))
                || (verb.equals("heat") && room.hot().contains(o))
                || (verb.equals("cool") && room.cool().contains(o));
    }

    public boolean satisfied(Room room) {
        if (type == Type.LOOK_IN_LIGHT) {
            return !room.holding().isEmpty()
                    && Things.kind(room.holding()).equals(object)
                    && room.lamps().entrySet().stream()
                            .anyMatch(l -> l.getValue().equals(room.at())
                                    && room.lampsOn().contains(l.getKey()));
        }
        int need = type == Type.PICK_TWO ? 2 : 1;
        Map<String, Long> placed = new java.util.HashMap<>();
        room.placement().forEach((o, r) -> {
            if (Things.kind(r).equals(receptacle) && fits(room, o)) {
                placed.merge(r, 1L, Long::sum);
            }
        });
        return placed.values().stream().anyMatch(n -> n >= need);
    }
}

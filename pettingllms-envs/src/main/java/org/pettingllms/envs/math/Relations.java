package org.pettingllms.envs.math;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.util.Brackets;

/**
 * Reads relations in normalised answers (relation symbols already in one spelling, see {@link LatexAnswers}):
 * inequalities, chains and {@code \ne} as the intervals of reals they describe, and equations as their sides.
 */
final class Relations {
    private static final Pattern OPERATOR = Pattern.compile("\\\\(?:le|ge|ne)(?![a-zA-Z])|<|>");
    private static final Pattern VARIABLE = Pattern.compile(
            "[a-zA-Z](?:_\\{?\\w+\\}?)?|\\\\(?:alpha|beta|gamma|theta|lambda|mu|phi|varphi|omega|sigma|tau)");
    private static final String NEG_INF = "-\\infty";
    private static final String INF = "\\infty";

    /** The set a relation describes, as interval text ({@code [4, \infty)}); {@code variable} may be null. */
    record Region(String variable, String intervals) {}

    /** An equation {@code left = right}. */
    record Equation(String left, String right) {
        /** {@code left - right}, which is zero exactly where the equation holds. */
        String zeroForm() {
            return "(" + left + ")-(" + right + ")";
        }
    }

    private Relations() {}

    /** {@code x \ge 4}, {@code 4 \le x}, {@code 1 < x \le 5}, {@code x \ne 3} as intervals; empty for anything else. */
    static Optional<Region> region(String s) {
        List<String> parts = new ArrayList<>();
        List<String> ops = new ArrayList<>();
        int start = 0;
        for (int[] at : topLevel(s)) {
            parts.add(s.substring(start, at[0]).strip());
            ops.add(s.substring(at[0], at[1]));
            start = at[1];
        }
        parts.add(s.substring(start).strip());
        if (ops.isEmpty() || parts.stream().anyMatch(String::isEmpty)) {
            return Optional.empty();
        }
        if (ops.size() == 1) {
            String op = ops.get(0);
            if (isVariable(parts.get(0))) {
                return Optional.of(new Region(parts.get(0), oneSided(op, parts.get(1))));
            }
            if (isVariable(parts.get(1))) {
                return Optional.of(new Region(parts.get(1), oneSided(flip(op), parts.get(0))));
            }
            return Optional.empty();
        }
        if (ops.size() == 2 && isVariable(parts.get(1))) {
            String a = ops.get(0);
            String b = ops.get(1);
            if (isLess(a) && isLess(b)) { // lo < x <= hi
                return Optional.of(new Region(
                        parts.get(1), bracket(a, true) + parts.get(0) + ", " + parts.get(2) + bracket(b, false)));
            }
            if (isGreater(a) && isGreater(b)) { // hi > x >= lo
                return Optional.of(new Region(
                        parts.get(1), bracket(b, true) + parts.get(2) + ", " + parts.get(0) + bracket(a, false)));
            }
        }
        return Optional.empty();
    }

    /** One equation with one {@code =} at the top level (not a list of them); empty otherwise. */
    static Optional<Equation> equation(String s) {
        List<String> sides = LatexAnswers.splitTopLevel(s, "=");
        if (sides.size() != 2
                || sides.get(0).isEmpty()
                || sides.get(1).isEmpty()
                || LatexAnswers.splitTopLevel(s, ",").size() > 1
                || !topLevel(s).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Equation(sides.get(0), sides.get(1)));
    }

    private static String oneSided(String op, String value) {
        return switch (op) {
            case "<" -> "(" + NEG_INF + ", " + value + ")";
            case "\\le" -> "(" + NEG_INF + ", " + value + "]";
            case ">" -> "(" + value + ", " + INF + ")";
            case "\\ge" -> "[" + value + ", " + INF + ")";
            default -> "(" + NEG_INF + ", " + value + ") \\cup (" + value + ", " + INF + ")"; // \ne
        };
    }

    private static String flip(String op) {
        return switch (op) {
            case "<" -> ">";
            case ">" -> "<";
            case "\\le" -> "\\ge";
            case "\\ge" -> "\\le";
            default -> op;
        };
    }

    private static boolean isLess(String op) {
        return op.equals("<") || op.equals("\\le");
    }

    private static boolean isGreater(String op) {
        return op.equals(">") || op.equals("\\ge");
    }

    private static String bracket(String op, boolean open) {
        boolean strict = op.equals("<") || op.equals(">");
        return open ? (strict ? "(" : "[") : (strict ? ")" : "]");
    }

    private static boolean isVariable(String s) {
        return VARIABLE.matcher(s).matches();
    }

    /** Positions {start, end} of relation operators outside any bracket. */
    private static List<int[]> topLevel(String s) {
        int[] depth = Brackets.ALL.depths(s);
        List<int[]> out = new ArrayList<>();
        Matcher m = OPERATOR.matcher(s);
        while (m.find()) {
            if (depth[m.start()] == 0) {
                out.add(new int[] {m.start(), m.end()});
            }
        }
        return out;
    }
}

package org.pettingllms.envs.math;

import java.time.Duration;
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

    /**
     * {@code x \ge 4}, {@code 4 \le x}, {@code 1 < x \le 5}, {@code x \ne 3} as intervals; empty for anything else.
     *
     * @param time what solving a linear relation may spend in computer algebra (the check's time left)
     */
    static Optional<Region> region(String s, Duration time) {
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
            return linear(parts.get(0), op, parts.get(1), time);
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

    /** A letter that stands alone (not in a command such as {@code \frac}, not in a word). */
    private static final Pattern LETTER = Pattern.compile("(?<![a-zA-Z\\\\])[a-zA-Z](?![a-zA-Z])");

    /**
     * A linear relation in one variable solved for it: {@code -x > -1} is {@code x < 1}, {@code 2x - 4 \ge 0} is
     * {@code x \ge 2} (dividing by a negative slope turns the relation round); empty for anything else.
     */
    private static Optional<Region> linear(String left, String op, String right, Duration time) {
        if (op.equals("\\ne")) {
            return Optional.empty();
        }
        java.util.TreeSet<String> letters = new java.util.TreeSet<>();
        Matcher m = LETTER.matcher((left + " " + right).replaceAll("\\\\[a-zA-Z]+", " "));
        while (m.find()) {
            letters.add(m.group());
        }
        if (letters.size() != 1) {
            return Optional.empty();
        }
        return SymjaMath.get()
                .linear("(" + left + ")-(" + right + ")", time)
                .map(f -> new Region(
                        letters.first(), oneSided(f.slope() < 0 ? flip(op) : op, boundary(-f.intercept(), f.slope()))));
    }

    /** {@code num / den} as an integer or a reduced fraction when both are whole, else as a decimal. */
    private static String boundary(double num, double den) {
        if (num == Math.rint(num) && den == Math.rint(den) && Math.abs(num) < 1e15 && Math.abs(den) < 1e15) {
            long n = (long) num;
            long d = (long) den;
            long g = java.math.BigInteger.valueOf(n)
                    .gcd(java.math.BigInteger.valueOf(d))
                    .longValue();
            n /= g;
            d /= g;
            if (d < 0) {
                n = -n;
                d = -d;
            }
            return d == 1 ? Long.toString(n) : n + "/" + d;
        }
        return Double.toString(num / den);
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
        return MathNames.VARIABLE.matcher(s).matches();
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

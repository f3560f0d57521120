package org.pettingllms.envs.math;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decides whether a candidate answer is mathematically equivalent to a reference (ENVIRONMENTS.md, math):
 * numbers exactly or within 1e-6 relative (integers with separators, decimals, fractions, scientific notation,
 * percentages), collections (sets and bare lists in any order; tuples and intervals in order, with their
 * brackets), equations {@code x = 3} against {@code 3}, then symbolic equivalence with the Symja computer algebra
 * system (radicals, pi, powers, polynomials; a numeric check at random points as fallback), then normalised text.
 */
public final class AnswerChecker {
    private static final Pattern DECIMAL = Pattern.compile("[-+]?(\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?");
    private static final Pattern SCI = Pattern.compile("([-+]?(?:\\d+\\.?\\d*|\\.\\d+))\\s*(?:\\\\times|\\\\cdot|\\*|x)\\s*10\\s*\\^\\s*\\{?\\s*([-+]?\\d+)\\s*\\}?");
    private static final Pattern FRAC = Pattern.compile("(-?)\\\\frac\\{\\s*(-?[\\d.]+)\\s*\\}\\{\\s*(-?[\\d.]+)\\s*\\}");
    private static final Pattern SLASH = Pattern.compile("(-?[\\d.]+)\\s*/\\s*(-?[\\d.]+)");
    private static final Duration SYMJA_DEADLINE = Duration.ofSeconds(5);

    private AnswerChecker() {
    }

    /** Extracts the final answer of {@code modelText} and compares it with {@code reference}. */
    public static boolean isCorrect(String modelText, String reference) {
        return AnswerExtractor.extract(modelText).map(a -> equivalent(a, reference)).orElse(false);
    }

    /** Whether {@code candidate} and {@code reference} are the same mathematical answer. */
    public static boolean equivalent(String candidate, String reference) {
        if (candidate == null || reference == null) {
            return false;
        }
        LatexAnswers.Normal c = LatexAnswers.normalize(candidate);
        LatexAnswers.Normal r = LatexAnswers.normalize(reference);
        if (c.text().isEmpty() || r.text().isEmpty()) {
            return false;
        }
        if (c.compact().equals(r.compact())) {
            return true;
        }
        Optional<Collection> cc = Collection.parse(c.text());
        Optional<Collection> rc = Collection.parse(r.text());
        if (cc.isPresent() && rc.isPresent()) {
            return cc.get().matches(rc.get());
        }
        if (cc.isPresent() || rc.isPresent()) {
            Collection one = cc.orElseGet(rc::get); // {5} against 5: a one-element set is its element
            return one.open().equals("{") && one.items().size() == 1
                    && equivalent(one.items().get(0), cc.isPresent() ? reference : candidate);
        }
        return scalarEquivalent(c, r);
    }

    private static boolean scalarEquivalent(LatexAnswers.Normal c, LatexAnswers.Normal r) {
        Optional<Number> cn = number(c.text());
        Optional<Number> rn = number(r.text());
        if (cn.isPresent() && rn.isPresent()) {
            return numbersEqual(cn.get(), rn.get(), c.percent() || r.percent());
        }
        if ((cn.isPresent() && isWord(r.text())) || (rn.isPresent() && isWord(c.text()))) {
            return false;
        }
        if (!isWord(c.text()) || !isWord(r.text())) {
            Optional<Boolean> symbolic = SymjaMath.get().equal(c.text(), r.text(), SYMJA_DEADLINE);
            if (symbolic.isPresent() || !isWord(c.text()) || !isWord(r.text())) {
                return symbolic.orElse(false);
            }
        }
        return plain(c.text()).equals(plain(r.text())) && !plain(c.text()).isEmpty();
    }

    /** A plain number (exact when decimal), or a fraction of plain numbers. */
    record Number(BigDecimal exact, double value) {
    }

    static Optional<Number> number(String s) {
        String t = s.replace(" ", "");
        if (DECIMAL.matcher(t).matches()) {
            BigDecimal d = new BigDecimal(t.startsWith("+") ? t.substring(1) : t);
            return Optional.of(new Number(d, d.doubleValue()));
        }
        Matcher m = SCI.matcher(s.strip());
        if (m.matches()) {
            BigDecimal d = new BigDecimal(m.group(1)).scaleByPowerOfTen(Integer.parseInt(m.group(2)));
            return Optional.of(new Number(d, d.doubleValue()));
        }
        m = FRAC.matcher(t);
        if (m.matches()) {
            return ratio(m.group(2), m.group(3), !m.group(1).isEmpty());
        }
        m = SLASH.matcher(t);
        if (m.matches()) {
            return ratio(m.group(1), m.group(2), false);
        }
        return Optional.empty();
    }

    private static Optional<Number> ratio(String num, String den, boolean negate) {
        try {
            BigDecimal n = new BigDecimal(num);
            BigDecimal d = new BigDecimal(den);
            if (d.signum() == 0) {
                return Optional.empty();
            }
            double v = n.doubleValue() / d.doubleValue();
            return Optional.of(new Number(null, negate ? -v : v));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static boolean numbersEqual(Number a, Number b, boolean percent) {
        if (sameNumber(a, b)) {
            return true;
        }
        // 50% may be written 50 or 0.5
        return percent && (SymjaMath.close(a.value(), b.value() / 100) || SymjaMath.close(a.value() / 100, b.value()));
    }

    /** Integers compare exactly; anything with a fractional part within the relative tolerance. */
    private static boolean sameNumber(Number a, Number b) {
        if (a.exact() != null && b.exact() != null) {
            if (a.exact().compareTo(b.exact()) == 0) {
                return true;
            }
            if (isInteger(a.exact()) && isInteger(b.exact())) {
                return false;
            }
        }
        return SymjaMath.close(a.value(), b.value());
    }

    private static boolean isInteger(BigDecimal d) {
        return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
    }

    private static boolean isWord(String s) {
        return s.matches("[A-Za-z][A-Za-z .'()-]*") && !s.matches("[A-Za-z]");
    }

    private static String plain(String s) {
        return s.toLowerCase().replaceAll("[^a-z0-9]", "");
    }

    /** A set, list, tuple or interval answer. */
    record Collection(String open, String close, List<String> items, boolean ordered) {
        static Optional<Collection> parse(String s) {
            List<String> union = LatexAnswers.splitTopLevel(s, "\\cup");
            if (union.size() > 1) {
                return Optional.of(new Collection("", "", union, false));
            }
            if (s.startsWith("\\{") && s.endsWith("\\}")) { // one element allowed: {5} is a set
                return Optional.of(new Collection("{", "}", LatexAnswers.splitTopLevel(s.substring(2, s.length() - 2), ","),
                        false));
            }
            if (s.length() >= 2 && "([".indexOf(s.charAt(0)) >= 0 && ")]".indexOf(s.charAt(s.length() - 1)) >= 0
                    && enclosesAll(s)) {
                List<String> items = LatexAnswers.splitTopLevel(s.substring(1, s.length() - 1), ",");
                if (items.size() > 1) { // "(5)" is a parenthesised scalar
                    return Optional.of(new Collection(s.substring(0, 1), s.substring(s.length() - 1), items, true));
                }
                return Optional.empty();
            }
            List<String> items = LatexAnswers.splitTopLevel(s, ",");
            return items.size() > 1 ? Optional.of(new Collection("", "", items, false)) : Optional.empty();
        }

        /** True when the first bracket closes at the last character: "(1,2)" yes, "(1)+(2)" no. */
        private static boolean enclosesAll(String s) {
            int depth = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '(' || c == '[' || c == '{') {
                    depth++;
                } else if (c == ')' || c == ']' || c == '}') {
                    depth--;
                    if (depth == 0 && i < s.length() - 1) {
                        return false;
                    }
                }
            }
            return depth == 0;
        }

        boolean matches(Collection other) {
            if (items.size() != other.items.size() || ordered != other.ordered) {
                return false;
            }
            if (ordered) {
                if (!open.equals(other.open) || !close.equals(other.close)) {
                    return false;
                }
                for (int i = 0; i < items.size(); i++) {
                    if (!equivalent(items.get(i), other.items.get(i))) {
                        return false;
                    }
                }
                return true;
            }
            List<String> left = new ArrayList<>(other.items);
            for (String item : items) {
                int hit = -1;
                for (int j = 0; j < left.size() && hit < 0; j++) {
                    if (equivalent(item, left.get(j))) {
                        hit = j;
                    }
                }
                if (hit < 0) {
                    return false;
                }
                left.remove(hit);
            }
            return true;
        }
    }
}

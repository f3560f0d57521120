package org.pettingllms.envs.math;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.util.Brackets;

/**
 * Decides whether a candidate answer is mathematically equivalent to a reference (docs/ENVIRONMENTS.md, math), in
 * this order: the same text after normalisation ({@link LatexAnswers}); matrices cell by cell; inequalities,
 * chains and {@code \ne} as the intervals they describe ({@code x \ge 4} = {@code 4 \le x} = {@code [4, \infty)});
 * equations equal up to a non-zero factor ({@code 2x+4y=3} = {@code -4x-8y+6=0}), an equation's right side
 * against a value ({@code x = 3} = {@code 3}); sets and bare lists in any order, tuples and intervals in order
 * with their brackets; numbers exactly (integers) or within {@value #REL_TOL} relative (decimals, fractions,
 * scientific notation, percentages against the bare number or its hundredth: {@link NumericAnswers}); then
 * symbolic equality with the Symja computer-algebra system (a numeric check at random points as its fallback); then
 * normalised words.
 * One check has a deadline of {@link #CHECK_DEADLINE}; past it the answer counts as wrong, with that reason.
 */
public final class AnswerChecker {
    /** Relative tolerance of numeric comparison. */
    public static final double REL_TOL = 1e-6;
    /** The most one check may take, all its symbolic questions together. */
    public static final Duration CHECK_DEADLINE = Duration.ofSeconds(8);

    private static final Duration SYMJA_DEADLINE = Duration.ofSeconds(5);

    /**
     * Digits, a comma, digits, and nothing else, left after normalisation took out thousands separators
     * ({@code 1,000} is gone; {@code 1000,99}, {@code 1,22}, {@code 0,111} stay): a decimal comma or a list of two.
     */
    private static final Pattern DECIMAL_COMMA = Pattern.compile("-?\\d+,\\d+");

    /** A reference that names a set its variable is in ({@code x \\in [-2, 7]}). */
    private static final Pattern MEMBERSHIP = Pattern.compile("(?s)[^=]*\\\\in\\b.*");

    /**
     * What {@code check-answer} shows: the extracted answer and the rule that found it (null when the text states
     * none), both normal forms, the verdict and why.
     */
    public record Verdict(
            String extracted,
            AnswerExtractor.Method method,
            String candidate,
            String reference,
            boolean correct,
            String reason) {}

    /** A comparison's outcome with its reason. */
    record Match(boolean equal, String reason) {
        static Match yes(String reason) {
            return new Match(true, reason);
        }

        static Match no(String reason) {
            return new Match(false, reason);
        }
    }

    private AnswerChecker() {}

    /** Extracts the final answer of {@code modelText} and compares it with {@code reference}. */
    public static boolean isCorrect(String modelText, String reference) {
        return check(modelText, reference).correct();
    }

    /** Whether {@code candidate} and {@code reference} are the same mathematical answer. */
    public static boolean equivalent(String candidate, String reference) {
        return compare(candidate, reference).equal();
    }

    /** Extraction and comparison with every step shown. */
    public static Verdict check(String modelText, String reference) {
        String ref = reference == null ? "" : LatexAnswers.normalize(reference).full();
        Optional<AnswerExtractor.Extraction> found = AnswerExtractor.find(modelText);
        if (found.isEmpty()) {
            return new Verdict(null, null, null, ref, false, "no answer found in the text");
        }
        String answer = found.get().answer();
        Match m = compare(answer, reference);
        return new Verdict(
                answer, found.get().method(), LatexAnswers.normalize(answer).full(), ref, m.equal(), m.reason());
    }

    static Match compare(String candidate, String reference) {
        if (candidate == null || reference == null) {
            return Match.no("no answer");
        }
        return match(candidate, reference, System.nanoTime() + CHECK_DEADLINE.toNanos());
    }

    private static Match match(String candidate, String reference, long deadline) {
        LatexAnswers.Normal c = LatexAnswers.normalize(candidate);
        LatexAnswers.Normal r = LatexAnswers.normalize(reference);
        if (c.text().isEmpty() || r.text().isEmpty()) {
            return Match.no("an empty answer");
        }
        if (c.compact().equals(r.compact()) || c.compactFull().equals(r.compactFull())) {
            return Match.yes("the same text after normalisation");
        }
        Optional<Matrix> cm = Matrix.parse(c.text());
        Optional<Matrix> rm = Matrix.parse(r.text());
        if (cm.isPresent() || rm.isPresent()) {
            return cm.isPresent() && rm.isPresent()
                    ? cm.get().matches(rm.get(), deadline)
                    : Match.no("a matrix against something that is not one");
        }
        Optional<Relations.Region> cr = Relations.region(c.full(), symjaTime(deadline));
        Optional<Relations.Region> rr = Relations.region(r.full(), symjaTime(deadline));
        if (cr.isPresent() || rr.isPresent()) {
            return regions(c, r, cr, rr, deadline);
        }
        Optional<Relations.Equation> ce = Relations.equation(c.full());
        Optional<Relations.Equation> re = Relations.equation(r.full());
        if (ce.isPresent() && re.isPresent() && !(c.prefixed() && r.prefixed())) {
            Optional<Boolean> f = SymjaMath.get()
                    .equalUpToFactor(ce.get().zeroForm(), re.get().zeroForm(), symjaTime(deadline));
            return f.map(e -> e
                            ? Match.yes("equations equal up to a non-zero factor")
                            : Match.no("equations that are not multiples of each other"))
                    .orElseGet(() -> Match.no("computer algebra could not compare the equations"));
        }
        if (ce.isPresent() != re.isPresent()) { // P(A) = 1/2 against 1/2
            Relations.Equation eq = ce.isPresent() ? ce.get() : re.get();
            if (!MathNames.EQUATION_NAME.matcher(eq.left()).matches()) { // a + 3z = 0 is not the value 0
                return Match.no("an equation whose left side " + eq.left() + " is not a name, against a value");
            }
            String side = eq.right();
            Match m = ce.isPresent() ? match(side, reference, deadline) : match(candidate, side, deadline);
            return new Match(m.equal(), "the equation's right side: " + m.reason());
        }
        Optional<String> cq = ratio(c.text());
        Optional<String> rq = ratio(r.text());
        if (cq.isPresent() && rq.isPresent()) { // 2 : 5 = 4 : 10, and not 5 : 2
            Match m = match(cq.get(), rq.get(), deadline);
            return new Match(m.equal(), "ratios as quotients: " + m.reason());
        }
        Optional<String> cpm = plusMinus(c.text());
        Optional<String> rpm = plusMinus(r.text());
        if (cpm.isPresent() || rpm.isPresent()) { // 1 \pm \sqrt{2} is the list 1+\sqrt{2}, 1-\sqrt{2}
            Match m = match(cpm.orElse(c.text()), rpm.orElse(r.text()), deadline);
            return new Match(m.equal(), "\\pm as two answers: " + m.reason());
        }
        Optional<Collection> cc = Collection.parse(c.text());
        Optional<Collection> rc = Collection.parse(r.text());
        boolean cComma = DECIMAL_COMMA.matcher(c.text()).matches();
        boolean rComma = DECIMAL_COMMA.matcher(r.text()).matches();
        if (cComma != rComma && (cComma ? rc : cc).isEmpty()) {
            // 1000,99 against 1000.99: against a single value, the comma is a decimal one (the reference checkers'
            // convention: European models and datasets write it so); against a list, a list's comma
            Match m = match(
                    cComma ? c.text().replace(',', '.') : candidate,
                    rComma ? r.text().replace(',', '.') : reference,
                    deadline);
            return new Match(m.equal(), "a decimal comma (" + (cComma ? c.text() : r.text()) + "): " + m.reason());
        }
        if (cc.isPresent() && rc.isPresent()) {
            return cc.get().matches(rc.get(), deadline);
        }
        if (cc.isPresent() || rc.isPresent()) {
            Collection one = cc.orElseGet(rc::get); // {5} against 5: a one-element set is its element
            if (one.open().equals("{") && one.items().size() == 1) {
                return cc.isPresent()
                        ? match(one.items().get(0), reference, deadline)
                        : match(candidate, one.items().get(0), deadline);
            }
            return Match.no("a " + one.kind() + " against a single value");
        }
        return scalar(c, r, deadline);
    }

    /** {@code a : b} (one colon outside any bracket) as the quotient {@code \frac{a}{b}}. */
    private static Optional<String> ratio(String s) {
        List<String> parts = LatexAnswers.splitTopLevel(s, ":");
        return parts.size() == 2 && !parts.get(0).isEmpty() && !parts.get(1).isEmpty()
                ? Optional.of("\\frac{" + parts.get(0) + "}{" + parts.get(1) + "}")
                : Optional.empty();
    }

    /** {@code a \pm b} as the set {@code \{a+b, a-b\}}; only one {@code \pm}, outside any bracket. */
    private static Optional<String> plusMinus(String s) {
        int at = s.indexOf("\\pm");
        if (at < 0
                || s.indexOf("\\pm", at + 1) >= 0
                || Character.isLetter(charAt(s, at + 3))
                || !LatexAnswers.splitTopLevel(s, "\\pm")
                        .equals(List.of(
                                s.substring(0, at).strip(), s.substring(at + 3).strip()))) {
            return Optional.empty();
        }
        String a = s.substring(0, at).strip();
        String b = s.substring(at + 3).strip();
        return Optional.of("\\{" + a + " + " + b + ", " + a + " - " + b + "\\}");
    }

    private static char charAt(String s, int i) {
        return i < s.length() ? s.charAt(i) : ' ';
    }

    /** Inequalities and intervals compared as the sets of reals they describe. */
    private static Match regions(
            LatexAnswers.Normal c,
            LatexAnswers.Normal r,
            Optional<Relations.Region> cr,
            Optional<Relations.Region> rr,
            long deadline) {
        if (cr.isPresent()
                && rr.isPresent()
                && cr.get().variable() != null
                && rr.get().variable() != null
                && !cr.get().variable().equals(rr.get().variable())) {
            return Match.no("relations about different variables (" + cr.get().variable() + ", "
                    + rr.get().variable() + ")");
        }
        if (cr.isPresent()
                && rr.isEmpty()
                && r.prefixed()
                && MEMBERSHIP.matcher(r.full()).matches()) {
            // the reference asks for the set (x \in [-2, 7]) and a relation (-2 \le x \le 7) is another form of
            // answer: the reference checkers' default (the other way round, a model's x \in S is its set S)
            return Match.no("a relation against the set the reference names (" + r.full() + ")");
        }
        String a = cr.map(Relations.Region::intervals).orElse(c.text());
        String b = rr.map(Relations.Region::intervals).orElse(r.text());
        if (cr.isEmpty() && Collection.parse(a).isEmpty()
                || rr.isEmpty() && Collection.parse(b).isEmpty()) {
            return Match.no("a relation against a value");
        }
        Match m = match(a, b, deadline);
        return new Match(m.equal(), "as intervals " + a + " and " + b + ": " + m.reason());
    }

    private static Match scalar(LatexAnswers.Normal c, LatexAnswers.Normal r, long deadline) {
        Optional<NumericAnswers.Number> cn = NumericAnswers.number(c.text());
        Optional<NumericAnswers.Number> rn = NumericAnswers.number(r.text());
        if (cn.isPresent() && rn.isPresent()) {
            return NumericAnswers.numbers(cn.get(), rn.get(), c.percent() || r.percent());
        }
        if ((cn.isPresent() && isWord(r.text())) || (rn.isPresent() && isWord(c.text()))) {
            return Match.no("a number against a word");
        }
        if (cn.isPresent() != rn.isPresent()) { // 28.27 against 9\pi: the value rounded at the decimal's last digit
            NumericAnswers.Number written = cn.orElseGet(rn::get);
            String other = cn.isPresent() ? r.text() : c.text();
            if (NumericAnswers.canRound(written)) {
                Optional<Double> v = SymjaMath.get().value(other, symjaTime(deadline));
                if (v.isPresent() && NumericAnswers.roundsTo(v.get(), written)) {
                    return Match.yes(other + " rounded at the last digit of "
                            + written.exact().toPlainString());
                }
            }
        }
        if (!isWord(c.text()) || !isWord(r.text())) {
            Optional<Boolean> symbolic = SymjaMath.get().equal(c.text(), r.text(), symjaTime(deadline));
            if (symbolic.isPresent() || !isWord(c.text()) || !isWord(r.text())) {
                return symbolic.map(e ->
                                e ? Match.yes("equal by computer algebra") : Match.no("different by computer algebra"))
                        .orElseGet(() -> Match.no(
                                System.nanoTime() > deadline
                                        ? "no decision within the deadline"
                                        : "computer algebra could not read one of them"));
            }
        }
        boolean same =
                plain(c.text()).equals(plain(r.text())) && !plain(c.text()).isEmpty();
        return same ? Match.yes("the same words") : Match.no("different words");
    }

    private static Duration symjaTime(long deadline) {
        long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
        return Duration.ofMillis(Math.min(left, SYMJA_DEADLINE.toMillis()));
    }

    private static boolean isWord(String s) {
        return s.matches("[A-Za-z][A-Za-z .'()-]*") && !s.matches("[A-Za-z]");
    }

    private static String plain(String s) {
        return s.toLowerCase().replaceAll("[^a-z0-9]", "");
    }

    /** A matrix ({@code pmatrix}, {@code bmatrix}, {@code array}...): rows of cells; the bracket style is style. */
    record Matrix(List<List<String>> rows) {
        private static final Pattern ENV = Pattern.compile(
                "^[(\\[]?\\s*\\\\begin\\{(p|b|B|small)?matrix\\}(.*)\\\\end\\{\\1?matrix\\}\\s*[)\\]]?$|"
                        + "^[(\\[]?\\s*\\\\begin\\{array\\}\\s*\\{[^}]*\\}(.*)\\\\end\\{array\\}\\s*[)\\]]?$",
                Pattern.DOTALL);

        static Optional<Matrix> parse(String s) {
            Matcher m = ENV.matcher(s.strip());
            if (!m.matches()) {
                return Optional.empty();
            }
            String body = m.group(2) != null ? m.group(2) : m.group(3);
            List<List<String>> rows = new ArrayList<>();
            for (String row : body.split("\\\\\\\\")) {
                if (!row.isBlank()) {
                    rows.add(List.of(row.split("&", -1)).stream()
                            .map(String::strip)
                            .toList());
                }
            }
            return rows.isEmpty() ? Optional.empty() : Optional.of(new Matrix(rows));
        }

        Match matches(Matrix other, long deadline) {
            if (rows.size() != other.rows.size()) {
                return Match.no("matrices with " + rows.size() + " and " + other.rows.size() + " rows");
            }
            for (int i = 0; i < rows.size(); i++) {
                if (rows.get(i).size() != other.rows.get(i).size()) {
                    return Match.no("matrices whose row " + (i + 1) + " has a different length");
                }
                for (int j = 0; j < rows.get(i).size(); j++) {
                    Match m = match(rows.get(i).get(j), other.rows.get(i).get(j), deadline);
                    if (!m.equal()) {
                        return Match.no("matrix cell (" + (i + 1) + "," + (j + 1) + "): " + m.reason());
                    }
                }
            }
            return Match.yes("matrices equal cell by cell");
        }
    }

    /** A set, list, tuple or interval answer. */
    record Collection(String open, String close, List<String> items, boolean ordered) {
        static Optional<Collection> parse(String s) {
            List<String> union = LatexAnswers.splitTopLevel(s, "\\cup");
            if (union.size() > 1) {
                return Optional.of(new Collection("", "", union, false));
            }
            if (s.startsWith("\\{") && s.endsWith("\\}")) { // one element allowed: {5} is a set
                return Optional.of(new Collection(
                        "{", "}", LatexAnswers.splitTopLevel(s.substring(2, s.length() - 2), ","), false));
            }
            if (s.length() >= 2
                    && "([".indexOf(s.charAt(0)) >= 0
                    && ")]".indexOf(s.charAt(s.length() - 1)) >= 0
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

        /** The same items as a set. */
        Collection unordered() {
            return new Collection("{", "}", items, false);
        }

        String kind() {
            return ordered ? "tuple or interval" : open.equals("{") ? "set" : "list";
        }

        /** True when the first bracket closes at the last character: "(1,2)" yes, "(1)+(2)" no. */
        private static boolean enclosesAll(String s) {
            return Brackets.ALL.closing(s, 0) == s.length() - 1;
        }

        Match matches(Collection other, long deadline) {
            if (items.size() != other.items.size()) {
                return Match.no(items.size() + " items against " + other.items.size());
            }
            if (ordered != other.ordered) {
                // {1, 2, 3} against (1, 2, 3): three or more items in brackets are no interval, and a model writes
                // a set's members in a tuple's brackets; two items could be the open interval (1, 2), not {1, 2}
                Collection tuple = ordered ? this : other;
                Collection set = ordered ? other : this;
                if (set.open().equals("{") && tuple.items().size() >= 3) {
                    Match m = unordered().matches(other.unordered(), deadline);
                    return new Match(m.equal(), "a set against a tuple, as sets: " + m.reason());
                }
                if (set.open().isEmpty()
                        && tuple.open().equals("(")
                        && tuple.close().equals(")")) {
                    // 1, 3 (or {1,3}, LaTeX's grouping braces) against (1, 3): the tuple's items written bare
                    Match m = new Collection("(", ")", set.items(), true).matches(tuple, deadline);
                    return new Match(m.equal(), "a bare list against a tuple, in order: " + m.reason());
                }
                return Match.no("a " + kind() + " against a " + other.kind());
            }
            if (ordered) {
                if (!open.equals(other.open) || !close.equals(other.close)) {
                    return Match.no("brackets " + open + close + " against " + other.open + other.close);
                }
                for (int i = 0; i < items.size(); i++) {
                    Match m = match(items.get(i), other.items.get(i), deadline);
                    if (!m.equal()) {
                        return Match.no("item " + (i + 1) + ": " + m.reason());
                    }
                }
                return Match.yes("equal item by item");
            }
            List<String> left = new ArrayList<>(other.items);
            for (String item : items) {
                int hit = -1;
                for (int j = 0; j < left.size() && hit < 0; j++) {
                    if (match(item, left.get(j), deadline).equal()) {
                        hit = j;
                    }
                }
                if (hit < 0) {
                    return Match.no(item + " has no equal in the reference");
                }
                left.remove(hit);
            }
            return Match.yes("the same items in any order");
        }
    }
}

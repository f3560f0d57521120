package org.pettingllms.envs.math;

import java.math.BigDecimal;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.envs.math.AnswerChecker.Match;

/**
 * Numbers as answers, for {@link AnswerChecker}: reading one (a decimal, scientific notation, a fraction of plain
 * numbers) and deciding whether two are the same: integers exactly, anything else within
 * {@value AnswerChecker#REL_TOL} relative, a decimal of enough digits as the value it rounds, a percentage against its
 * hundredth. Apart from the checker because exact arithmetic and rounding conventions are a question of their own,
 * asked only once both answers are plain numbers.
 */
final class NumericAnswers {
    private static final Pattern DECIMAL = Pattern.compile("[-+]?(\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?");
    private static final Pattern SCI = Pattern.compile(
            "([-+]?(?:\\d+\\.?\\d*|\\.\\d+))\\s*(?:\\\\times|\\\\cdot|\\*|x)\\s*10\\s*\\^\\s*\\{?\\s*([-+]?\\d+)\\s*\\}?");
    private static final Pattern FRAC =
            Pattern.compile("(-?)\\\\frac\\{\\s*(-?[\\d.]+)\\s*\\}\\{\\s*(-?[\\d.]+)\\s*\\}");
    /** Significant digits a decimal needs before it may stand for a value it rounds (0.3333 for 1/3; 0.33 not). */
    static final int ROUNDED_DIGITS = 4;

    private static final Pattern SLASH = Pattern.compile("(-?[\\d.]+)\\s*/\\s*(-?[\\d.]+)");

    private NumericAnswers() {}

    /** A plain number (exact when decimal), or a fraction of plain numbers. */
    record Number(BigDecimal exact, double value) {}

    static Optional<Number> number(String s) {
        if (s.matches("(?s).*\\d\\s+\\d.*")) { // "12 34" is two numbers (12 345 was joined by normalisation)
            return Optional.empty();
        }
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

    static Match numbers(Number a, Number b, boolean percent) {
        Match same = sameNumber(a, b);
        if (same.equal() || !percent) {
            return same;
        }
        // 50% may be written 50 or 0.5
        if (SymjaMath.close(a.value(), b.value() / 100) || SymjaMath.close(a.value() / 100, b.value())) {
            return Match.yes("a percentage against its hundredth");
        }
        return same;
    }

    /** Integers compare exactly; anything with a fractional part within the relative tolerance. */
    private static Match sameNumber(Number a, Number b) {
        if (a.exact() != null && b.exact() != null) {
            if (a.exact().compareTo(b.exact()) == 0) {
                return Match.yes("the same number");
            }
            if (isInteger(a.exact()) && isInteger(b.exact())) {
                return Match.no("different integers");
            }
        }
        if (SymjaMath.close(a.value(), b.value())) {
            return Match.yes("numbers equal within relative tolerance 1e-6");
        }
        for (Number[] p : new Number[][] {{a, b}, {b, a}}) { // 0.3333 for 1/3, 2.6667 for 8/3
            Number written = p[0];
            Number other = p[1];
            if (canRound(written)
                    && !(other.exact() != null
                            && other.exact().scale() <= written.exact().scale())
                    && roundsTo(other.value(), written)) {
                return Match.yes(other.value() + " rounded at the last digit of "
                        + written.exact().toPlainString());
            }
        }
        return Match.no("numbers differ by more than relative tolerance 1e-6 (" + a.value() + " vs " + b.value() + ")");
    }

    /**
     * Whether a written decimal may stand for a value it rounds: a fractional part and at least
     * {@link #ROUNDED_DIGITS} significant digits (0.3333 for 1/3, 28.27 for 9\pi; 0.33 and 0.3 stand for no
     * other value), the convention of reference checkers that compare a decimal within a relative 1e-4.
     */
    static boolean canRound(Number n) {
        return n.exact() != null && n.exact().scale() > 0 && n.exact().precision() >= ROUNDED_DIGITS;
    }

    /** Whether {@code value} rounded half up at {@code written}'s last digit is {@code written}. */
    static boolean roundsTo(double value, Number written) {
        if (!Double.isFinite(value)) {
            return false;
        }
        return BigDecimal.valueOf(value)
                        .setScale(written.exact().scale(), java.math.RoundingMode.HALF_UP)
                        .compareTo(written.exact())
                == 0;
    }

    private static boolean isInteger(BigDecimal d) {
        return d.signum() == 0 || d.stripTrailingZeros().scale() <= 0;
    }
}

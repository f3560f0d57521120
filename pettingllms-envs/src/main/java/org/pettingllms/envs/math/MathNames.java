package org.pettingllms.envs.math;

import java.util.regex.Pattern;

/**
 * The names the math reward reads on the left of an answer's {@code =} or relation, kept in one place: each pattern
 * is the one {@link #SYMBOL} widened by what its reader must also accept, and says why.
 */
final class MathNames {
    /** A variable: one letter, optionally subscripted ({@code x}, {@code a_1}, {@code b_{12}}). */
    static final String SYMBOL = "[a-zA-Z](?:_\\{?\\w+\\}?)?";

    /**
     * What a relation is over ({@link Relations}): a variable or a Greek letter that names one. Not any command:
     * {@code \pi} or {@code \infty} on the left of {@code <} is a value, not the unknown.
     */
    static final Pattern VARIABLE =
            Pattern.compile(SYMBOL + "|\\\\(?:alpha|beta|gamma|theta|lambda|mu|phi|varphi|omega|sigma|tau)");

    /**
     * What names the answer in an answer line ({@code x = 5}, {@code \theta = \pi}; {@link AnswerExtractor}): a
     * variable or any command, since the extractor only decides where the answer starts and the checker decides
     * what it means.
     */
    static final Pattern ANSWER_NAME = Pattern.compile(SYMBOL + "|\\\\[a-zA-Z]+");

    /**
     * What an equation may name on its left for its right side to be the answer ({@link AnswerChecker}): a variable
     * or command, optionally applied ({@code f(2)}, {@code P(A)}), a word in {@code \text{}} ({@code \text{area}}),
     * or a bare word; or names of several quantities: a tuple ({@code (p, q)}), a ratio ({@code V_1 : V_2}), an
     * absolute value ({@code |AB|}), a quotient ({@code \\frac{NO}{BO}}), each of words with a subscript and no
     * digit outside it; anything else ({@code a + 3z = 0}, {@code 7 = 11a + c}) makes the equation the answer,
     * never its right side.
     */
    static final Pattern EQUATION_NAME;

    static {
        String word = "[A-Za-z]+(?:_\\{?\\w+\\}?)?";
        EQUATION_NAME =
                Pattern.compile("(?:" + SYMBOL + "|\\\\[a-zA-Z]+)(?:\\s*\\([^()=]*\\))?|\\\\text\\{[^{}=]*\\}|[A-Za-z]+"
                        + "|\\(\\s*" + word + "(?:\\s*,\\s*" + word + ")+\\s*\\)"
                        + "|" + word + "(?:\\s*:\\s*" + word + ")+"
                        + "|\\|\\s*" + word + "\\s*\\|"
                        + "|\\\\frac\\{\\s*" + word + "\\s*\\}\\{\\s*" + word + "\\s*\\}");
    }

    private MathNames() {}
}

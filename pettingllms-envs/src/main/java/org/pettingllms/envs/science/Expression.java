package org.pettingllms.envs.science;

import java.util.Map;
import java.util.Set;

/**
 * A proposed law's right-hand side, parsed and evaluated without running anything: numbers, the lab's variables,
 * {@code + - * / ^}, unary minus and parentheses. Grammar (precedence climbing):
 * <pre>
 *   sum     = product (("+" | "-") product)*
 *   product = unary (("*" | "/") unary)*
 *   unary   = "-" unary | power
 *   power   = atom ("^" unary)?
 *   atom    = number | variable | "(" sum ")"
 * </pre>
 * At most {@link #MAX_LENGTH} characters and {@link #MAX_DEPTH} nested parentheses; anything else is a
 * {@link IllegalArgumentException} naming the position.
 */
public final class Expression {
    static final int MAX_LENGTH = 200;
    static final int MAX_DEPTH = 16;

    private final String text;
    private final Set<String> variables;
    private int at;
    private int depth;
    private Map<String, Double> values;

    private Expression(String text, Set<String> variables) {
        this.text = text;
        this.variables = variables;
    }

    /** Checks that {@code text} parses over {@code variables}. */
    public static void check(String text, Set<String> variables) {
        evaluate(text, variables, Map.of(), true);
    }

    /** The value of {@code text} at {@code values} (every variable must have one). */
    public static double evaluate(String text, Map<String, Double> values) {
        return evaluate(text, values.keySet(), values, false);
    }

    private static double evaluate(String text, Set<String> variables, Map<String, Double> values, boolean dry) {
        String t = text.replace(" ", "");
        if (t.isEmpty() || t.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("an expression of 1 to " + MAX_LENGTH + " characters expected");
        }
        Expression e = new Expression(t, variables);
        e.values = dry ? null : values;
        double v = e.sum();
        if (e.at != t.length()) {
            throw new IllegalArgumentException("unexpected '" + t.charAt(e.at) + "' at " + e.at);
        }
        return v;
    }

    private double sum() {
        double v = product();
        while (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
            char op = text.charAt(at++);
            double r = product();
            v = op == '+' ? v + r : v - r;
        }
        return v;
    }

    private double product() {
        double v = unary();
        while (at < text.length() && (text.charAt(at) == '*' || text.charAt(at) == '/')) {
            char op = text.charAt(at++);
            double r = unary();
            v = op == '*' ? v * r : v / r;
        }
        return v;
    }

    private double unary() {
        if (at < text.length() && text.charAt(at) == '-') {
            at++;
            nest();
            double v = -unary();
            depth--;
            return v;
        }
        return power();
    }

    private double power() {
        double v = atom();
        if (at < text.length() && text.charAt(at) == '^') {
            at++;
            v = Math.pow(v, unary()); // -x^2 is -(x^2); 2^-1 is a half
        }
        return v;
    }

    private void nest() {
        if (++depth > MAX_DEPTH) {
            throw new IllegalArgumentException("more than " + MAX_DEPTH + " levels of nesting");
        }
    }

    private double atom() {
        if (at >= text.length()) {
            throw new IllegalArgumentException("the expression ends early");
        }
        char c = text.charAt(at);
        if (c == '(') {
            at++;
            nest();
            double v = sum();
            depth--;
            if (at >= text.length() || text.charAt(at) != ')') {
                throw new IllegalArgumentException("')' expected at " + at);
            }
            at++;
            return v;
        }
        if (Character.isDigit(c) || c == '.') {
            int start = at;
            while (at < text.length() && (Character.isDigit(text.charAt(at)) || text.charAt(at) == '.')) {
                at++;
            }
            try {
                return Double.parseDouble(text.substring(start, at));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a number at " + start);
            }
        }
        if (Character.isLetter(c)) {
            int start = at;
            while (at < text.length() && Character.isLetterOrDigit(text.charAt(at))) {
                at++;
            }
            String name = text.substring(start, at);
            if (!variables.contains(name)) {
                throw new IllegalArgumentException("unknown variable '" + name + "' at " + start);
            }
            return values == null ? 1 : values.get(name);
        }
        throw new IllegalArgumentException("unexpected '" + c + "' at " + at);
    }
}

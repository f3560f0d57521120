package org.pettingllms.core.util;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Bracket depth in a line of text: the one scanner behind math answers (split a tuple at its top-level commas, find
 * the brace that closes a LaTeX group), the code oracle (the call an assert makes, the expression before its message)
 * and chat templates (the arguments of a call). A closing bracket closes whichever bracket is open: the texts read
 * here are checked elsewhere, and a scanner that refused "(a]" would only lose answers.
 *
 * @param opens the characters that open a bracket
 * @param closes the characters that close one
 * @param strings whether '...' and "..." are strings whose brackets and separators do not count; inside a string a
 *     backslash escapes the next character, as in Python and Jinja
 */
public record Brackets(String opens, String closes, boolean strings) {

    /** (), [] and {}, no strings: math answers, where a quote is a prime. */
    public static final Brackets ALL = new Brackets("([{", ")]}", false);

    /** {} alone: LaTeX groups, whose text may hold a bracket of its own (a list label's "1)"). */
    public static final Brackets BRACES = new Brackets("{", "}", false);

    /** (), [] and {} outside Python or Jinja string literals. */
    public static final Brackets CODE = new Brackets("([{", ")]}", true);

    public Brackets {
        if (opens.isEmpty() || opens.length() != closes.length()) {
            throw new IllegalArgumentException("opens and closes must be non-empty and of one length");
        }
    }

    /** Index of the bracket closing the one at {@code open}, or -1 when it never closes. */
    public int closing(String s, int open) {
        if (open < 0 || open >= s.length() || opens.indexOf(s.charAt(open)) < 0) {
            throw new IllegalArgumentException("no opening bracket at " + open + " of \"" + s + "\"");
        }
        return closingOpenBefore(s, open + 1);
    }

    /** Index of the bracket closing one that is open before {@code from}, or -1. */
    public int closingOpenBefore(String s, int from) {
        return walk(s, from, 1, (i, depth) -> depth == 1 && closes.indexOf(s.charAt(i)) >= 0);
    }

    /** Index of the first {@code separator} from {@code from} outside any bracket and string, or -1. */
    public int indexOfTopLevel(String s, String separator, int from) {
        return walk(s, from, 0, (i, depth) -> depth == 0 && !isBracket(s.charAt(i)) && s.startsWith(separator, i));
    }

    /** The parts between top-level separators, not stripped: "f(a, b), c" at "," gives "f(a, b)" and " c". */
    public List<String> split(String s, String separator) {
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("an empty separator");
        }
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int at; (at = indexOfTopLevel(s, separator, start)) >= 0; start = at + separator.length()) {
            parts.add(s.substring(start, at));
        }
        parts.add(s.substring(start));
        return parts;
    }

    /** Brackets open before each character of {@code s}, counted from the start; -1 at a string's characters. */
    public int[] depths(String s) {
        int[] depths = new int[s.length()];
        Arrays.fill(depths, -1);
        walk(s, 0, 0, (i, depth) -> {
            depths[i] = depth;
            return false;
        });
        return depths;
    }

    private boolean isBracket(char c) {
        return opens.indexOf(c) >= 0 || closes.indexOf(c) >= 0;
    }

    /** Decides, at a character outside strings, whether the walk stops there. */
    private interface Stop {
        /**
         * @param i the character's index
         * @param depth brackets open before it
         */
        boolean at(int i, int depth);
    }

    /** Walks from {@code from} with {@code depth} brackets open; returns the first index where stop says so, or -1. */
    private int walk(String s, int from, int depth, Stop stop) {
        char quote = 0;
        for (int i = from; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++; // the escaped character, a quote included, stays in the string
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (strings && (c == '\'' || c == '"')) {
                quote = c;
            } else if (stop.at(i, depth)) {
                return i;
            } else if (opens.indexOf(c) >= 0) {
                depth++;
            } else if (closes.indexOf(c) >= 0) {
                depth--;
            }
        }
        return -1;
    }
}

package org.pettingllms.envs.verilog;

import java.util.ArrayList;
import java.util.List;

/**
 * Verilog source split into tokens the way Icarus Verilog's lexer splits it, for the design lint: comments ({@code //}
 * to the end of a line, which a lone carriage return ends too; {@code /* ... *\/}), strings (with backslash escapes;
 * a comment marker inside one is text), escaped identifiers ({@code \tb } names {@code tb}, up to white space),
 * simple and system identifiers, compiler directives, numbers (so {@code 1.5} is not a name and a field), and single
 * characters. White space is Icarus's set (space, tab, backspace, form feed, line ends), not Java's. One lexer for
 * all of these is what keeps the lint and the compiler reading the same names; the judge makes every line end a
 * newline first ({@link #newlines}), as Icarus's preprocessor does, and compiles that text.
 */
final class VerilogTokens {
    enum Kind {
        /** a simple or escaped identifier; {@link Token#text} is the name (an escaped one without its backslash) */
        NAME,
        /** {@code $name} */
        SYSTEM,
        /** {@code `name} */
        DIRECTIVE,
        STRING,
        NUMBER,
        /** any other character */
        PUNCT
    }

    /** @param line 1-based, counting a lone carriage return as a line end, as Icarus does */
    record Token(Kind kind, String text, int line) {
        boolean is(String punct) {
            return kind == Kind.PUNCT && text.equals(punct);
        }
    }

    private VerilogTokens() {}

    /** The source with every line end ({@code \r\n}, {@code \n\r}, a lone {@code \r}) one newline, as Icarus reads it. */
    static String newlines(String src) {
        return src.replace("\r\n", "\n").replace("\n\r", "\n").replace('\r', '\n');
    }

    /** Icarus's white space: {@code [ \t\b\f\r\n]}. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\b' || c == '\f' || c == '\r' || c == '\n';
    }

    static List<Token> of(String src) {
        List<Token> out = new ArrayList<>();
        int n = src.length();
        int line = 1;
        int i = 0;
        while (i < n) {
            char c = src.charAt(i);
            if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < n && src.charAt(i + 1) == '\n') {
                    i++;
                }
                line++;
                i++;
            } else if (isSpace(c) || c == '\uFEFF') {
                i++;
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                while (i < n && src.charAt(i) != '\n' && src.charAt(i) != '\r') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int end = src.indexOf("*/", i + 2);
                int stop = end < 0 ? n : end + 2;
                line += lineEnds(src, i, stop);
                i = stop;
            } else if (c == '"') {
                int j = i + 1;
                while (j < n && src.charAt(j) != '"' && src.charAt(j) != '\n' && src.charAt(j) != '\r') {
                    j += src.charAt(j) == '\\' && j + 1 < n ? 2 : 1;
                }
                int stop = Math.min(n, j + 1);
                out.add(new Token(Kind.STRING, src.substring(i, stop), line));
                line += lineEnds(src, i, stop);
                i = stop;
            } else if (c == '\\') {
                int j = i + 1;
                while (j < n && !isSpace(src.charAt(j))) {
                    j++;
                }
                out.add(new Token(Kind.NAME, src.substring(i + 1, j), line));
                i = j;
            } else if (c == '$' || c == '`' || isNameStart(c)) {
                int j = i + 1;
                while (j < n && isNamePart(src.charAt(j))) {
                    j++;
                }
                Kind kind = c == '$' ? Kind.SYSTEM : c == '`' ? Kind.DIRECTIVE : Kind.NAME;
                out.add(new Token(kind, src.substring(i, j), line));
                i = j;
            } else if (Character.isDigit(c) || c == '\'' && i + 1 < n && isBased(src, i + 1)) {
                int j = number(src, i);
                out.add(new Token(Kind.NUMBER, src.substring(i, j), line));
                i = j;
            } else {
                out.add(new Token(Kind.PUNCT, String.valueOf(c), line));
                i++;
            }
        }
        return out;
    }

    private static int lineEnds(String s, int from, int to) {
        int lines = 0;
        for (int k = from; k < to; k++) {
            char c = s.charAt(k);
            if (c == '\n' || c == '\r' && !(k + 1 < to && s.charAt(k + 1) == '\n')) {
                lines++;
            }
        }
        return lines;
    }

    private static boolean isNameStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || c >= '0' && c <= '9' || c == '$';
    }

    /** After a quote: a base ({@code 'h}, {@code 'sb}) or an unbased bit ({@code '0}, {@code 'x}). */
    private static boolean isBased(String s, int i) {
        char c = Character.toLowerCase(s.charAt(i));
        if (c == 's' && i + 1 < s.length()) {
            c = Character.toLowerCase(s.charAt(i + 1));
        }
        return "bodh01xz".indexOf(c) >= 0;
    }

    /**
     * A number: digits with underscores, a fraction and an exponent ({@code 1.5e-3}), and a based part after a size
     * or alone ({@code 8'hFF}, {@code 'b1010}, {@code 4 'd 3}); x, z and ? digits included.
     */
    private static int number(String s, int i) {
        int n = s.length();
        int j = i;
        if (s.charAt(j) != '\'') {
            while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                j++;
            }
            if (j + 1 < n && s.charAt(j) == '.' && Character.isDigit(s.charAt(j + 1))) {
                j++;
                while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                    j++;
                }
            }
            if (j < n && (s.charAt(j) == 'e' || s.charAt(j) == 'E')) {
                int k = j + 1;
                if (k < n && (s.charAt(k) == '+' || s.charAt(k) == '-')) {
                    k++;
                }
                if (k < n && Character.isDigit(s.charAt(k))) {
                    j = k;
                    while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '_')) {
                        j++;
                    }
                }
            }
            int k = j;
            while (k < n && (s.charAt(k) == ' ' || s.charAt(k) == '\t')) {
                k++;
            }
            if (k + 1 < n && s.charAt(k) == '\'' && isBased(s, k + 1)) {
                j = k;
            } else {
                return j;
            }
        }
        j++; // the quote
        if (j < n && (s.charAt(j) == 's' || s.charAt(j) == 'S')) {
            j++;
        }
        if (j < n && "bBoOdDhH".indexOf(s.charAt(j)) >= 0) {
            j++;
            while (j < n && (s.charAt(j) == ' ' || s.charAt(j) == '\t')) {
                j++;
            }
        }
        while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '?')) {
            j++;
        }
        return j;
    }
}

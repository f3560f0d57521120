package org.pettingllms.envs.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What a model-written query is allowed to be before it reaches SQLite: one statement (a {@code ;} may end it, nothing
 * but whitespace and comments may follow) whose first keyword is {@code SELECT}, {@code WITH} or {@code VALUES}. So
 * no {@code ATTACH}, {@code PRAGMA}, {@code VACUUM INTO} (which writes a file even on a read-only database), writes or
 * schema changes; the read-only connection refuses the writes a {@code WITH ... DELETE} would try. One lexer
 * ({@link #tokens}) serves both questions asked of a query; it knows SQLite's string literals ({@code '...'} with
 * {@code ''}), quoted identifiers ({@code "..."}, {@code `...`}, {@code [...]}) and comments ({@code --} to the line's
 * end, {@code /* ... *}{@code /}).
 */
public final class SqlStatement {
    private static final Set<String> FIRST = Set.of("SELECT", "WITH", "VALUES");

    private SqlStatement() {}

    /** A token: a keyword or name ({@code word}, upper-cased), a quoted string or name, or one other character. */
    record Token(Kind kind, String text, int start) {
        enum Kind {
            WORD,
            QUOTED,
            OTHER
        }

        boolean is(char c) {
            return kind == Kind.OTHER && text.charAt(0) == c;
        }
    }

    /** The tokens of {@code sql}, or the reason it cannot be read (an unterminated string or quoted name). */
    record Lexed(List<Token> tokens, String error) {}

    static Lexed tokens(String sql) {
        List<Token> out = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2; // SQLite ends an unterminated comment at the end of the input
            } else if (c == '\'' || c == '"' || c == '`') {
                int end = closing(sql, i, c);
                if (end < 0) {
                    return new Lexed(out, "an unterminated " + (c == '\'' ? "string" : "quoted name"));
                }
                out.add(new Token(Token.Kind.QUOTED, sql.substring(i, end), i));
                i = end;
            } else if (c == '[') {
                int end = sql.indexOf(']', i + 1);
                if (end < 0) {
                    return new Lexed(out, "an unterminated [name]");
                }
                out.add(new Token(Token.Kind.QUOTED, sql.substring(i, end + 1), i));
                i = end + 1;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n
                        && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                out.add(new Token(Token.Kind.WORD, sql.substring(start, i).toUpperCase(Locale.ROOT), start));
            } else {
                out.add(new Token(Token.Kind.OTHER, String.valueOf(c), i));
                i++;
            }
        }
        return new Lexed(out, null);
    }

    /** Null when {@code sql} may run, else why not (one line). */
    public static String refusal(String sql) {
        if (sql == null || sql.isBlank()) {
            return "the query is empty";
        }
        Lexed lexed = tokens(sql);
        List<Token> t = lexed.tokens();
        for (int k = 0; k < t.size(); k++) { // checked before the lexer's error: it is the first problem in the text
            if (t.get(k).is(';') && k + 1 < t.size()) {
                return "one statement only: text follows the ';' at character "
                        + (t.get(k).start() + 1);
            }
        }
        if (lexed.error() != null) {
            return lexed.error();
        }
        if (t.isEmpty() || t.get(0).is(';')) {
            return "the query is empty";
        }
        String first = t.get(0).kind() == Token.Kind.WORD ? t.get(0).text() : "";
        if (!FIRST.contains(first)) {
            return "only a SELECT (or WITH ... SELECT, VALUES) runs here, got "
                    + (first.isEmpty() ? "no keyword first" : first);
        }
        return null;
    }

    /** The index after the quote closing the one at {@code at} (a doubled quote is one inside), or -1. */
    private static int closing(String sql, int at, char quote) {
        int i = at + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return -1;
    }

    /**
     * Whether the statement orders its result: an {@code ORDER BY} outside every parenthesis (one inside a subquery or
     * a window does not order the rows returned). Strings, quoted names and comments are skipped; an unreadable
     * statement orders nothing.
     */
    public static boolean ordersResult(String sql) {
        Lexed lexed = tokens(sql);
        if (lexed.error() != null) {
            return false;
        }
        int depth = 0;
        Token previous = null;
        for (Token t : lexed.tokens()) {
            if (t.is('(')) {
                depth++;
            } else if (t.is(')')) {
                depth = Math.max(0, depth - 1);
            } else if (depth == 0
                    && t.kind() == Token.Kind.WORD
                    && t.text().equals("BY")
                    && previous != null
                    && previous.kind() == Token.Kind.WORD
                    && previous.text().equals("ORDER")) {
                return true;
            }
            previous = t;
        }
        return false;
    }
}

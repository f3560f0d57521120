package org.pettingllms.envs.sql;

import java.util.Locale;
import java.util.Set;

/**
 * What a model-written query is allowed to be before it reaches SQLite: one statement (a {@code ;} may end it, nothing
 * but whitespace and comments may follow) whose first keyword is {@code SELECT}, {@code WITH} or {@code VALUES}. So
 * no {@code ATTACH}, {@code PRAGMA}, {@code VACUUM INTO} (which writes a file even on a read-only database), writes or
 * schema changes; the read-only connection refuses the writes a {@code WITH ... DELETE} would try. The lexer knows
 * SQLite's string literals ({@code '...'} with {@code ''}), quoted identifiers ({@code "..."}, {@code `...`},
 * {@code [...]}) and comments ({@code --} to the line's end, {@code /* ... *}{@code /}).
 */
public final class SqlStatement {
    private static final Set<String> FIRST = Set.of("SELECT", "WITH", "VALUES");

    private SqlStatement() {}

    /** Null when {@code sql} may run, else why not (one line). */
    public static String refusal(String sql) {
        if (sql == null || sql.isBlank()) {
            return "the query is empty";
        }
        String first = null;
        boolean ended = false;
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
            } else if (ended) {
                return "one statement only: text follows the ';' at character " + lastSemicolon(sql, i);
            } else if (c == ';') {
                ended = true;
                i++;
            } else if (c == '\'' || c == '"' || c == '`') {
                i = closing(sql, i, c);
                if (i < 0) {
                    return "an unterminated " + (c == '\'' ? "string" : "quoted name");
                }
                first = first == null ? "" : first;
            } else if (c == '[') {
                int end = sql.indexOf(']', i + 1);
                if (end < 0) {
                    return "an unterminated [name]";
                }
                i = end + 1;
                first = first == null ? "" : first;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n
                        && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                if (first == null) {
                    first = sql.substring(start, i).toUpperCase(Locale.ROOT);
                }
            } else {
                first = first == null ? "" : first;
                i++;
            }
        }
        if (first == null) {
            return "the query is empty";
        }
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
     * a window does not order the rows returned). Strings, quoted names and comments are skipped.
     */
    public static boolean ordersResult(String sql) {
        int depth = 0;
        String previous = "";
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 ? n : eol + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '\'' || c == '"' || c == '`') {
                i = closing(sql, i, c);
                if (i < 0) {
                    return false;
                }
                previous = "";
            } else if (c == '[') {
                int end = sql.indexOf(']', i + 1);
                i = end < 0 ? n : end + 1;
                previous = "";
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n
                        && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                String word = sql.substring(start, i).toUpperCase(Locale.ROOT);
                if (depth == 0 && previous.equals("ORDER") && word.equals("BY")) {
                    return true;
                }
                previous = word;
            } else {
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth = Math.max(0, depth - 1);
                }
                if (!Character.isWhitespace(c)) {
                    previous = "";
                }
                i++;
            }
        }
        return false;
    }

    private static int lastSemicolon(String sql, int before) {
        return sql.lastIndexOf(';', before) + 1;
    }
}

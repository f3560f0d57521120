package org.pettingllms.hub;

import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The two kinds of wildcard pattern over repo paths that huggingface_hub users know: {@link #fnmatch} for
 * {@code allow_patterns} / {@code ignore_patterns} ({@code --include}, {@code --exclude}) and {@link #path} for
 * {@code hf://} file-system paths.
 */
public final class Glob {
    private Glob() {}

    /**
     * Python's {@code fnmatchcase}, as huggingface_hub filters repo files: {@code *} matches anything, {@code /}
     * included ({@code data/*.json} matches {@code data/sub/x.json}), {@code ?} one character, {@code [abc]} and
     * {@code [!abc]} one of (not of) the set; case-sensitive; a pattern ending in {@code /} matches everything under
     * that folder.
     */
    public static Predicate<String> fnmatch(String pattern) {
        String p = pattern.endsWith("/") ? pattern + "*" : pattern;
        return Pattern.compile(translate(p, false)).asMatchPredicate();
    }

    /**
     * A file-system glob, as {@code HfFileSystem.glob} reads one: {@code *} and {@code ?} stay within one path part,
     * {@code **} spans parts ({@code data/**}{@code /*.jsonl}), {@code [abc]} and {@code [!abc]} as in fnmatch.
     */
    public static Predicate<String> path(String pattern) {
        return Pattern.compile(translate(pattern, true)).asMatchPredicate();
    }

    /** Whether {@code text} holds a wildcard character. */
    public static boolean hasWildcard(String text) {
        return text.indexOf('*') >= 0 || text.indexOf('?') >= 0 || text.indexOf('[') >= 0;
    }

    private static String translate(String glob, boolean segments) {
        StringBuilder re = new StringBuilder();
        int n = glob.length();
        for (int i = 0; i < n; i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                if (segments && i + 1 < n && glob.charAt(i + 1) == '*') {
                    i++;
                    // "**/" also matches no folder at all, so that a/**/b matches a/b
                    if (i + 1 < n && glob.charAt(i + 1) == '/') {
                        i++;
                        re.append("(?:.*/)?");
                    } else {
                        re.append(".*");
                    }
                } else {
                    re.append(segments ? "[^/]*" : ".*");
                }
            } else if (c == '?') {
                re.append(segments ? "[^/]" : ".");
            } else if (c == '[') {
                int close = classEnd(glob, i);
                if (close < 0) {
                    re.append("\\[");
                } else {
                    String body = glob.substring(i + 1, close);
                    boolean negate = body.startsWith("!");
                    if (negate) {
                        body = body.substring(1);
                    }
                    re.append('[')
                            .append(negate ? "^" : "")
                            .append(setBody(body))
                            .append(']');
                    i = close;
                }
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return re.toString();
    }

    /** A set's members for a Java character class: ranges kept, every other symbol literal. */
    private static String setBody(String body) {
        StringBuilder out = new StringBuilder();
        for (char ch : body.toCharArray()) {
            if (ch != '-' && !Character.isLetterOrDigit(ch)) {
                out.append('\\');
            }
            out.append(ch);
        }
        return out.toString();
    }

    /** The index of the {@code ]} that closes the set opened at {@code open}, or -1 (then {@code [} is literal). */
    private static int classEnd(String glob, int open) {
        int j = open + 1;
        if (j < glob.length() && glob.charAt(j) == '!') {
            j++;
        }
        if (j < glob.length() && glob.charAt(j) == ']') {
            j++; // a ']' first in the set is a member, as in fnmatch
        }
        int close = glob.indexOf(']', j);
        return close;
    }
}

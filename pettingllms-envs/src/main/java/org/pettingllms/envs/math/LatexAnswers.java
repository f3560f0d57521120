package org.pettingllms.envs.math;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Text normalisation of math answers before comparison: math delimiters, spacing commands, {@code \dfrac},
 * degrees, percent signs, {@code \text{}} wrappers, trailing units, thousands separators and a leading
 * {@code x =} are removed, so that what is left is the mathematical content.
 */
final class LatexAnswers {
    private static final List<String> WRAPPERS = List.of("\\text", "\\textbf", "\\textit", "\\textrm", "\\mathrm",
            "\\mathbf", "\\mbox", "\\operatorname", "\\mathit", "\\boxed");
    private static final Pattern TRAILING_UNIT =
            Pattern.compile("\\s*(?<![\\\\a-zA-Z])[a-zA-Z]{2,}(\\s*\\^\\s*\\{?\\d\\}?)?\\.?\\s*$");
    private static final Pattern THOUSANDS = Pattern.compile("-?\\d{1,3}(,\\d{3})+(\\.\\d+)?");
    private static final Pattern PREFIX = Pattern.compile("^\\s*[a-zA-Z](?:_\\{?\\w+\\}?)?\\s*(?:=|\\\\in|\\\\le|\\\\ge)\\s*(.+)$",
            Pattern.DOTALL);

    /** A normalised answer; {@code percent} records that a percent sign was removed. */
    record Normal(String text, boolean percent) {
        /** The text without any whitespace, for exact comparison. */
        String compact() {
            return text.replaceAll("\\s+", "");
        }
    }

    private LatexAnswers() {
    }

    static Normal normalize(String raw) {
        String s = unwrapDelimiters(raw.strip());
        s = s.replace("\\$", "").replace("$", "");
        for (String cmd : List.of("\\left", "\\right", "\\displaystyle", "\\!", "\\,", "\\;", "\\:", "\\ ")) {
            s = s.replace(cmd, " ");
        }
        s = s.replace("~", " ").replace("{,}", ",").replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac");
        s = s.replaceAll("\\^\\s*\\{?\\s*\\\\circ\\s*\\}?", "").replace("°", "").replace("\\degree", "");
        boolean percent = s.contains("%");
        s = s.replace("\\%", "").replace("%", "");
        s = unwrapCommands(s);
        s = s.replaceAll("\\\\frac\\s*(\\d)\\s*(\\d)", "\\\\frac{$1}{$2}").replaceAll("\\\\sqrt\\s*(\\d+)", "\\\\sqrt{$1}");
        s = s.replaceAll("\\s+", " ").strip();
        while (s.endsWith(".") || s.endsWith(",")) {
            s = s.substring(0, s.length() - 1).strip();
        }
        while (s.matches(".*\\d.*") && TRAILING_UNIT.matcher(s).find()) {
            String cut = TRAILING_UNIT.matcher(s).replaceFirst("").strip();
            if (cut.isEmpty() || !cut.matches(".*\\d.*")) {
                break;
            }
            s = cut;
        }
        var prefix = PREFIX.matcher(s);
        if (prefix.matches() && !prefix.group(1).contains("=")) {
            s = prefix.group(1).strip();
        }
        if (THOUSANDS.matcher(s).matches()) {
            s = s.replace(",", "");
        }
        return new Normal(s, percent);
    }

    private static String unwrapDelimiters(String s) {
        for (boolean changed = true; changed; ) {
            changed = false;
            for (String[] d : new String[][] {{"$$", "$$"}, {"$", "$"}, {"\\(", "\\)"}, {"\\[", "\\]"}}) {
                if (s.length() >= d[0].length() + d[1].length() && s.startsWith(d[0]) && s.endsWith(d[1])) {
                    s = s.substring(d[0].length(), s.length() - d[1].length()).strip();
                    changed = true;
                }
            }
        }
        return s;
    }

    /** {@code \text{abc}} -> {@code abc} (balanced braces), for every wrapper command. */
    private static String unwrapCommands(String s) {
        for (String cmd : WRAPPERS) {
            for (int at = s.indexOf(cmd + "{"); at >= 0; at = s.indexOf(cmd + "{")) {
                int open = at + cmd.length();
                int close = matching(s, open);
                if (close < 0) {
                    break;
                }
                s = s.substring(0, at) + " " + s.substring(open + 1, close) + " " + s.substring(close + 1);
            }
        }
        return s;
    }

    /** Index of the brace closing the one at {@code open}, or -1. */
    static int matching(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** Splits at top-level commas (outside any (), [], {}). */
    static List<String> splitTopLevel(String s, String separator) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (depth == 0 && s.startsWith(separator, i)) {
                parts.add(s.substring(start, i).strip());
                start = i + separator.length();
                i = start - 1;
            }
        }
        parts.add(s.substring(start).strip());
        return parts;
    }
}

package org.pettingllms.envs.math;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.pettingllms.core.util.Brackets;

/**
 * Text normalisation of math answers before comparison: math delimiters, spacing commands, {@code \dfrac},
 * degrees, percent signs, {@code \text{}} wrappers, trailing units, thousands separators and a leading
 * {@code x =} are removed, so that what is left is the mathematical content.
 */
final class LatexAnswers {
    private static final List<String> WRAPPERS = List.of(
            "\\text",
            "\\textbf",
            "\\textit",
            "\\textrm",
            "\\textnormal",
            "\\textsf",
            "\\texttt",
            "\\textup",
            "\\emph",
            "\\mathrm",
            "\\mathbf",
            "\\mathsf",
            "\\mathtt",
            "\\mathit",
            "\\mathnormal",
            "\\mbox",
            "\\hbox",
            "\\operatorname",
            "\\boxed");
    /** Sizing and style switches that carry no mathematical content. */
    private static final Pattern SWITCHES = Pattern.compile("\\\\(?:left|right|[bB]igg?[lr]?|displaystyle|textstyle|"
            + "scriptstyle)(?![a-zA-Z])\\.?|(?<!\\\\)\\\\[!,;: ]|\\\\quad|\\\\qquad");

    private static final Pattern TRAILING_UNIT =
            Pattern.compile("\\s*(?<![\\\\a-zA-Z])[a-zA-Z]{2,}(\\s*\\^\\s*\\{?\\d\\}?)?(/[a-zA-Z]{1,3})?\\.?\\s*$");
    /**
     * Digits, a comma and digits that no thousands group spells (one or two digits after the comma, or a leading
     * 0): a decimal comma where a number stands ({@code 2,74}, {@code 0,125}), for the extractor's number rule.
     */
    static final String DECIMAL_COMMA_NUMBER = "(?:\\d+,\\d{1,2}|0,\\d+)";
    /** A thousands group never starts a number with 0: 0,111 is no thousand (it is a decimal comma, below). */
    private static final Pattern THOUSANDS = Pattern.compile("-?[1-9]\\d{0,2}(,\\d{3})+(\\.\\d+)?");
    /**
     * A JSON-escaped command ({@code \\frac}, {@code \\left}: models that write LaTeX inside a JSON string or a
     * Python literal double every backslash). Only these names, so that a matrix's row break before a cell
     * ({@code 1 \\ x}, {@code \\\end}) stays one.
     */
    private static final Pattern DOUBLED_COMMAND =
            Pattern.compile("(?<!\\\\)\\\\(?=\\\\(?:left|right|[dtc]?frac|sqrt|pi|"
                    + "leq?|geq?|neq?|lt|gt|cdot|times|div|infty|pm|mp|in|cup|cap|text|mathrm|mathbf|boxed|begin|end|approx|"
                    + "circ|ldots|dots)(?![a-zA-Z]))");
    /** A comma in braces between digits, spaced as models space it: {@code 14 {, }916}. */
    private static final Pattern BRACED_COMMA = Pattern.compile("(?<=\\d)\\s*\\{\\s*,\\s*\\}\\s*(?=\\d)");
    /** "and" / "or" between two values ({@code 6 and 8}, {@code (11,7)or(7,11)}), not inside a word. */
    private static final Pattern LIST_WORD =
            Pattern.compile("(?<=[\\d)\\]}])\\s*(?<![a-zA-Z])(?:and|or)(?![a-zA-Z])\\s*(?=[-+\\d(\\[{\\\\])");

    private static final Pattern SPACED_THOUSANDS = Pattern.compile("-?\\d{1,3}( \\d{3})+(\\.\\d+)?");
    private static final Pattern PREFIX =
            Pattern.compile("^\\s*[a-zA-Z](?:_\\{?\\w+\\}?)?\\s*(?:=|\\\\in)\\s*(.+)$", Pattern.DOTALL);
    /** Relation symbols in their many spellings, each to one canonical form. */
    private static final Map<Pattern, String> RELATIONS = relations(
            "\\\\(?:leqslant|leq|le)(?![a-zA-Z])|≤|<=", " \\\\le ",
            "\\\\(?:geqslant|geq|ge)(?![a-zA-Z])|≥|>=", " \\\\ge ",
            "\\\\(?:neq|ne)(?![a-zA-Z])|≠|!=|<>", " \\\\ne ",
            "\\\\lt(?![a-zA-Z])", " < ",
            "\\\\gt(?![a-zA-Z])", " > ");

    private static final Pattern PERCENT_WORD = Pattern.compile("(?s).*\\d\\s*(?:\\\\text\\{\\s*)?percent\\b.*");

    /**
     * A normalised answer: {@code text} without a leading {@code x =} / {@code x \in}, {@code full} with it;
     * {@code percent} records that a percent sign (or the word) was removed.
     */
    record Normal(String text, String full, boolean percent) {
        /** The text without any whitespace, for exact comparison. */
        String compact() {
            return squeeze(text);
        }

        /** The full text without whitespace. */
        String compactFull() {
            return squeeze(full);
        }

        /** Whitespace removed, except that "12 34" stays two numbers. */
        private static String squeeze(String s) {
            return s.replaceAll("(?<=\\d)\\s+(?=\\d)", "\u2423").replaceAll("\\s+", "");
        }

        /** Whether a leading {@code x =} or {@code x \in} was removed. */
        boolean prefixed() {
            return !text.equals(full);
        }
    }

    private LatexAnswers() {}

    private static Map<Pattern, String> relations(String... regexAndReplacement) {
        Map<Pattern, String> out = new LinkedHashMap<>();
        for (int i = 0; i < regexAndReplacement.length; i += 2) {
            out.put(Pattern.compile(regexAndReplacement[i]), regexAndReplacement[i + 1]);
        }
        return out;
    }

    static Normal normalize(String raw) {
        String s = unwrapDelimiters(DOUBLED_COMMAND.matcher(raw.strip()).replaceAll(""));
        s = s.replace("\\$", "").replace("$", "");
        // 14{,}916, 14 {, }916 and 14,\!916: a thousands comma in LaTeX's spellings
        s = BRACED_COMMA
                .matcher(s.replaceAll(",\\\\!\\s*", ","))
                .replaceAll(",")
                .replace("{,}", ",");
        s = SWITCHES.matcher(s).replaceAll(" ");
        s = s.replace("~", " ")
                .replace("\\dfrac", "\\frac")
                .replace("\\tfrac", "\\frac")
                .replace("\\cfrac", "\\frac");
        s = s.replaceAll("\\^\\s*\\{?\\s*\\\\circ\\s*\\}?", "").replace("°", "").replace("\\degree", "");
        boolean percent = s.contains("%") || PERCENT_WORD.matcher(s).matches();
        s = s.replace("\\%", "").replace("%", "");
        s = unwrapCommands(s);
        if (percent) {
            s = s.replaceAll("\\bpercent\\b", "");
        }
        s = bracedArguments(s);
        // 6 and 8, (11,7) or (7,11): items of a list; (0;0;0), -12;-11: the semicolon as the item separator
        s = LIST_WORD.matcher(s).replaceAll(", ").replace(';', ',');
        while (s.startsWith("{") && matching(s, 0) == s.length() - 1) { // {1,3}: grouping braces hold no meaning
            s = s.substring(1, s.length() - 1).strip();
        }
        for (Map.Entry<Pattern, String> r : RELATIONS.entrySet()) {
            s = r.getKey().matcher(s).replaceAll(r.getValue());
        }
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
        if (THOUSANDS.matcher(s).matches()) {
            s = s.replace(",", "");
        }
        if (SPACED_THOUSANDS.matcher(s).matches()) { // 12 345 and 12\,345
            s = s.replace(" ", "");
        }
        String full = s;
        var prefix = PREFIX.matcher(s);
        if (prefix.matches() && !prefix.group(1).contains("=")) {
            s = prefix.group(1).strip();
        }
        return new Normal(s, full, percent);
    }

    /**
     * {@code \frac37}, {@code \frac 3{7}}, {@code \frac\pi2} -> {@code \frac{3}{7}}...; {@code \sqrt5} -> {@code \sqrt{5}}:
     * every argument of {@code \frac} and {@code \sqrt} in braces, so that later rules see one spelling.
     */
    static String bracedArguments(String s) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            int frac = s.startsWith("\\frac", i) && !letterAt(s, i + 5) ? 2 : 0;
            int sqrt = s.startsWith("\\sqrt", i) && !letterAt(s, i + 5) ? 1 : 0;
            if (frac + sqrt == 0) {
                out.append(s.charAt(i++));
                continue;
            }
            out.append(frac > 0 ? "\\frac" : "\\sqrt");
            i += 5;
            if (sqrt > 0) {
                int j = skipSpaces(s, i);
                if (j < s.length() && s.charAt(j) == '[') {
                    int close = s.indexOf(']', j);
                    if (close < 0) {
                        out.append(s.substring(i));
                        return out.toString();
                    }
                    out.append(s, j, close + 1);
                    i = close + 1;
                }
            }
            for (int a = 0; a < frac + sqrt; a++) {
                int j = skipSpaces(s, i);
                if (j >= s.length()) {
                    break;
                }
                int end;
                if (s.charAt(j) == '{') {
                    end = matching(s, j) + 1;
                    if (end == 0) {
                        out.append(s.substring(i));
                        return out.toString();
                    }
                    out.append(bracedArgumentsInGroup(s.substring(j, end)));
                } else {
                    end = j + 1;
                    if (s.charAt(j) == '\\') {
                        while (end < s.length() && Character.isLetter(s.charAt(end))) {
                            end++;
                        }
                    }
                    out.append('{').append(s, j, end).append('}');
                }
                i = end;
            }
        }
        return out.toString();
    }

    private static String bracedArgumentsInGroup(String group) {
        return "{" + bracedArguments(group.substring(1, group.length() - 1)) + "}";
    }

    private static boolean letterAt(String s, int i) {
        return i < s.length() && Character.isLetter(s.charAt(i));
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && s.charAt(i) == ' ') {
            i++;
        }
        return i;
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

    /** Index of the brace closing the one at {@code open}, or -1 (braces alone: "\text{1)}" is one group). */
    static int matching(String s, int open) {
        return Brackets.BRACES.closing(s, open);
    }

    /** The stripped parts between separators outside any (), [], {}. */
    static List<String> splitTopLevel(String s, String separator) {
        return Brackets.ALL.split(s, separator).stream().map(String::strip).toList();
    }
}

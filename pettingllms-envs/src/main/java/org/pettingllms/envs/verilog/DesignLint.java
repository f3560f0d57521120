package org.pettingllms.envs.verilog;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a model-written design may not use, checked before it is compiled: a design describes hardware through its
 * own ports, so it needs no file or simulation-control task, no reach into other modules and no compiler directive
 * that pulls in other files. Refused: system tasks outside {@link #ALLOWED} ({@code $fopen}, {@code $readmemh},
 * {@code $finish}, {@code $dumpfile}, {@code $root}...), hierarchical names ({@code tb.good1.q}), the dataset
 * harness's reference module ({@code RefModule}), {@code force}/{@code release}/{@code defparam}/{@code bind}, and
 * {@code `include}. Without these, a design cannot read the bench, the compiled simulation or a reference, stop the
 * bench early, or print the bench's lines, whatever the judge runs beside it.
 */
final class DesignLint {
    /** System functions a design may call: value conversions and queries, prints (which the judge ignores), randoms. */
    static final Set<String> ALLOWED = Set.of(
            "$signed",
            "$unsigned",
            "$clog2",
            "$bits",
            "$size",
            "$high",
            "$low",
            "$left",
            "$right",
            "$countones",
            "$onehot",
            "$onehot0",
            "$isunknown",
            "$display",
            "$write",
            "$strobe",
            "$monitor",
            "$time",
            "$stime",
            "$realtime",
            "$random",
            "$urandom",
            "$urandom_range",
            "$rtoi",
            "$itor",
            "$realtobits",
            "$bitstoreal");

    private static final Pattern COMMENTS = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);

    /** Verilog source with its comments made spaces. */
    static String withoutComments(String source) {
        return COMMENTS.matcher(source).replaceAll(" ");
    }

    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\\\n]|\\\\.)*\"");
    private static final Pattern SYSTEM = Pattern.compile("\\$[A-Za-z_][A-Za-z0-9_$]*");
    /** {@code a.b} where {@code a} is a name (not a number, not a port connection's leading dot). */
    private static final Pattern HIERARCHY =
            Pattern.compile("(?<![A-Za-z0-9_$.'])([A-Za-z_][A-Za-z0-9_$]*)\\s*\\.\\s*([A-Za-z_][A-Za-z0-9_$]*)");

    private static final Pattern WORDS =
            Pattern.compile("(?<![A-Za-z0-9_$`])(force|release|defparam|bind|RefModule)\\b");
    private static final Pattern INCLUDE = Pattern.compile("`\\s*include\\b");

    private DesignLint() {}

    /** Why the design is refused, or empty. */
    static Optional<String> check(String design) {
        String code = STRINGS.matcher(withoutComments(design)).replaceAll("\"\"");
        Matcher m = SYSTEM.matcher(code);
        while (m.find()) {
            if (!ALLOWED.contains(m.group().toLowerCase(Locale.ROOT))) {
                return Optional.of("refused: " + m.group() + " (a design may not use file, dump or simulation-control"
                        + " tasks)");
            }
        }
        m = HIERARCHY.matcher(code);
        if (m.find()) {
            return Optional.of("refused: hierarchical name " + m.group(1) + "." + m.group(2)
                    + " (a design reads only its own ports and signals)");
        }
        m = WORDS.matcher(code);
        if (m.find()) {
            return Optional.of("refused: " + m.group(1) + " (a design may not reach into other modules)");
        }
        if (INCLUDE.matcher(code).find()) {
            return Optional.of("refused: `include (a design is one self-contained file)");
        }
        return Optional.empty();
    }
}

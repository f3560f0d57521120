package org.pettingllms.envs.verilog;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.pettingllms.envs.verilog.VerilogTokens.Kind;
import org.pettingllms.envs.verilog.VerilogTokens.Token;

/**
 * What a model-written design may not use, checked before it is compiled: a design describes hardware through its
 * own ports, so it needs no file or simulation-control task, no reach into other modules and no compiler directive
 * that pulls in other files. Refused: system tasks outside {@link #ALLOWED} ({@code $fopen}, {@code $readmemh},
 * {@code $finish}, {@code $dumpfile}, {@code $root}, {@code $value$plusargs}...), hierarchical names ({@code
 * tb.good1.q}, {@code u[0].q}, {@code pkg::x}), the names of the modules it is compiled beside (the dataset harness's
 * reference {@code RefModule}, the harness's and the bench's own modules, tasks, functions and named blocks), {@code
 * force}/{@code release}/{@code defparam}/{@code bind}/{@code disable}, {@code inout} ports (a design drives its
 * outputs only), and {@code `include}. The source is read by {@link VerilogTokens}, Icarus's own reading of
 * strings, comments, escaped names and line ends; a design with macros is checked as Icarus's preprocessor expands it
 * ({@link #needsPreprocessing}, then the expanded text is what is checked and compiled). Without these, a design
 * cannot read the bench, the compiled simulation or a reference, stop the bench early, or print the bench's lines,
 * whatever the judge runs beside it.
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

    /** Directives that change no name and pull in nothing: a design with only these is compiled as written. */
    static final Set<String> PLAIN_DIRECTIVES = Set.of(
            "`timescale",
            "`default_nettype",
            "`resetall",
            "`celldefine",
            "`endcelldefine",
            "`unconnected_drive",
            "`nounconnected_drive");

    /** Keywords that reach into other modules' signals or parameters. */
    private static final Set<String> REACHING = Set.of("force", "release", "defparam", "bind", "disable", "inout");

    private static final Pattern COMMENTS = Pattern.compile("//[^\\n\\r]*|/\\*.*?\\*/", Pattern.DOTALL);

    /** Verilog source with its comments made spaces (for trusted sources: references and harnesses). */
    static String withoutComments(String source) {
        return COMMENTS.matcher(source).replaceAll(" ");
    }

    private DesignLint() {}

    /** Why the design is refused, or empty; it is compiled beside the harness's {@code RefModule} only. */
    static Optional<String> check(String design) {
        return check(design, Set.of());
    }

    /**
     * Why the design is refused, or empty.
     *
     * @param foreign the modules it is compiled beside (besides {@code RefModule}), which it may not name
     */
    static Optional<String> check(String design, Set<String> foreign) {
        List<Token> t = VerilogTokens.of(design);
        for (int k = 0; k < t.size(); k++) {
            Token tok = t.get(k);
            switch (tok.kind()) {
                case SYSTEM -> {
                    if (!ALLOWED.contains(tok.text().toLowerCase(Locale.ROOT))) {
                        return refused(
                                tok,
                                tok.text() + " (a design may not use file, dump, argument or"
                                        + " simulation-control tasks)");
                    }
                }
                case DIRECTIVE -> {
                    if (tok.text().equals("`include")) {
                        return refused(tok, "`include (a design is one self-contained file)");
                    }
                    if (!PLAIN_DIRECTIVES.contains(tok.text())) { // what is checked is the expansion: none is left
                        return refused(tok, tok.text() + " left after the preprocessor expanded the design");
                    }
                }
                case NAME -> {
                    if (REACHING.contains(tok.text())) {
                        return refused(
                                tok,
                                tok.text() + " (a design may not reach into other modules: it drives its"
                                        + " own outputs only)");
                    }
                    if (tok.text().equals("RefModule") || foreign.contains(tok.text())) {
                        return refused(
                                tok,
                                tok.text() + " (a module the design is judged beside; a design may not" + " name it)");
                    }
                }
                case PUNCT -> {
                    if (tok.is(".") && k > 0 && k + 1 < t.size() && t.get(k + 1).kind() == Kind.NAME) {
                        Token before = t.get(k - 1);
                        if (before.kind() == Kind.NAME || before.is("]")) {
                            return refused(
                                    tok,
                                    "hierarchical name " + before.text() + "."
                                            + t.get(k + 1).text() + " (a design reads only its own ports and signals)");
                        }
                    }
                    if (tok.is(":") && k + 1 < t.size() && t.get(k + 1).is(":")) {
                        return refused(tok, "scope name :: (a design reads only its own ports and signals)");
                    }
                }
                default -> {}
            }
        }
        return Optional.empty();
    }

    /**
     * Why the design as written is refused before its preprocessor runs, or empty: an {@code `include} (the
     * preprocessor would read the file in).
     */
    static Optional<String> beforePreprocessing(String design) {
        for (Token tok : VerilogTokens.of(design)) {
            if (tok.kind() == Kind.DIRECTIVE && tok.text().equals("`include")) {
                return refused(tok, "`include (a design is one self-contained file)");
            }
        }
        return Optional.empty();
    }

    /**
     * Whether the design uses directives beyond {@link #PLAIN_DIRECTIVES} (macros, conditionals): then what Icarus
     * compiles is its preprocessor's expansion, which is what must be checked.
     */
    static boolean needsPreprocessing(String design) {
        for (Token tok : VerilogTokens.of(design)) {
            if (tok.kind() == Kind.DIRECTIVE && !PLAIN_DIRECTIVES.contains(tok.text())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The names a trusted source declares that a design inside it could reach by a simple name: modules, interfaces,
     * programs and packages (instantiated by name), and tasks and functions (Verilog looks a called task or function
     * up through the enclosing modules, so a design could call the harness's own).
     */
    static Set<String> declaredModules(String source) {
        Set<String> names = new java.util.TreeSet<>();
        List<Token> t = VerilogTokens.of(source);
        for (int k = 0; k + 1 < t.size(); k++) {
            if (t.get(k).kind() != Kind.NAME) {
                continue;
            }
            String w = t.get(k).text();
            if (Set.of("module", "macromodule", "interface", "program", "package")
                            .contains(w)
                    && t.get(k + 1).kind() == Kind.NAME) {
                names.add(t.get(k + 1).text());
            } else if ((w.equals("begin") || w.equals("fork"))
                    && t.get(k + 1).is(":")
                    && k + 2 < t.size()
                    && t.get(k + 2).kind() == Kind.NAME) {
                names.add(t.get(k + 2).text()); // a named block, which disable could end from inside the design
            } else if (w.equals("task") || w.equals("function")) {
                String last = null; // the name is the last one before its ports or its semicolon
                for (int j = k + 1;
                        j < t.size() && !t.get(j).is("(") && !t.get(j).is(";");
                        j++) {
                    last = t.get(j).kind() == Kind.NAME ? t.get(j).text() : last;
                }
                if (last != null) {
                    names.add(last);
                }
            }
        }
        return names;
    }

    private static Optional<String> refused(Token tok, String why) {
        return Optional.of("refused: " + why + " (line " + tok.line() + ")");
    }
}

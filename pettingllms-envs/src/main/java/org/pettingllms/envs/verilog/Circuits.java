package org.pettingllms.envs.verilog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.LongFunction;
import java.util.stream.Collectors;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.data.ContentSplit;

/**
 * Generated hardware problems, the CPU-scale source of {@code verilog-v1} ({@code task.options.generator: circuits};
 * ENVIRONMENTS.md, Verilog): combinational logic from worded truth tables and from arithmetic (sums with and without
 * the carry, differences, comparisons, the larger of two, counts of 1 bits, a multiplexer), and small sequential
 * modules (counters with a modulus, an enable and a direction; shift registers; edge detectors), with a synchronous,
 * active-high reset. A truth table's designer reads a brief that does not say whether y is active high or low (the
 * tester reads it: {@link VerilogItem#brief}). Each has its reference design and three plausible wrong designs (a row
 * of the table flipped, the other level, the carry dropped, the comparison made inclusive, the count wrapped one
 * late, the shift the other way) that a good testbench tells apart from the reference. Problems are split by content
 * ({@link ContentSplit}: the specification's words), so no held-out specification is a training one.
 */
public final class Circuits {
    public static final String NAME = "circuits";
    private static final String[] NAMES = {"a", "b", "c", "d"};
    /** The names of a one-bit serial input: an edge detector's, a shift register's. */
    private static final String[] SERIAL_INPUTS = {"d", "x", "s", "w", "u", "n"};
    /** The names of an edge detector's output. */
    private static final String[] EDGE_OUTPUTS = {"y", "z", "v"};
    /** The names of a shift register's output. */
    private static final String[] SHIFT_OUTPUTS = {"q", "r", "o"};
    /** An edge detector's specification's first words (no other kind's begins so). */
    private static final String EDGE_SPEC = "At each rising clock edge ";
    /** The most rows where a truth table's y is 1. */
    static final int MAX_ONES = 6;

    private Circuits() {}

    /** The kinds of circuit, in the order a seed draws them (a truth table twice as often as each other kind). */
    public enum Kind {
        TABLE,
        ARITHMETIC,
        COUNTER,
        SHIFT,
        EDGE;

        /** The kind named in a config ({@code table}, {@code arithmetic}, {@code counter}, {@code shift}, {@code edge}). */
        public static Kind parse(String name, String key) {
            for (Kind k : values()) {
                if (k.label().equals(name)) {
                    return k;
                }
            }
            throw new ConfigException("config key '" + key + "': unknown kind of circuit '" + name
                    + "'; expected some of "
                    + Arrays.stream(values()).map(Kind::label).collect(Collectors.joining(", ")));
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The problem of a seed (its split decided by its words). */
    public static VerilogItem item(long seed) {
        return ContentSplit.row(seed, Circuits::draw, Circuits::content);
    }

    /** What the split is decided by: the specification's words and the module header. */
    private static String content(VerilogItem item) {
        return item.spec() + "\n" + item.header();
    }

    /**
     * Problems of some kinds only (for a learning check that isolates one skill, or a curriculum): a seed's draws that
     * are of another kind are drawn again, as draws of the wrong split are, so every kind keeps its own problems and
     * splits; all kinds give {@link #item(long)}'s problems.
     */
    public static LongFunction<VerilogItem> items(Set<Kind> kinds) {
        if (kinds.isEmpty() || kinds.containsAll(EnumSet.allOf(Kind.class))) {
            return Circuits::item;
        }
        Set<Kind> wanted = EnumSet.copyOf(kinds);
        return seed ->
                ContentSplit.row(seed, (s, id) -> wanted.contains(kindOf(s)) ? draw(s, id) : null, Circuits::content);
    }

    /** The kind a seed draws: the first draw of its generator, as {@link #draw} makes it. */
    private static Kind kindOf(long seed) {
        return kind(new SplittableRandom(seed));
    }

    private static Kind kind(SplittableRandom rng) {
        return switch (rng.nextInt(6)) {
            case 0, 1 -> Kind.TABLE;
            case 2 -> Kind.ARITHMETIC;
            case 3 -> Kind.COUNTER;
            case 4 -> Kind.SHIFT;
            default -> Kind.EDGE;
        };
    }

    /** A problem before its module header is put around the bodies; {@code brief} empty: the designer reads spec. */
    private record Draft(
            String spec,
            String brief,
            int briefReading,
            List<Port> ports,
            boolean sequential,
            String body,
            List<String> wrongBodies) {
        Draft(String spec, List<Port> ports, boolean sequential, String body, List<String> wrongBodies) {
            this(spec, "", 0, ports, sequential, body, wrongBodies);
        }
    }

    private static VerilogItem draw(long seed, long idSeed) {
        SplittableRandom rng = new SplittableRandom(seed);
        Draft d = switch (kind(rng)) {
            case TABLE -> truthTable(rng);
            case ARITHMETIC -> arithmetic(rng);
            case COUNTER -> counter(rng);
            case SHIFT -> shifter(rng);
            case EDGE -> edge(rng);
        };
        VerilogItem shell =
                new VerilogItem("hw-" + idSeed, d.spec(), d.ports(), d.sequential(), "", List.of(), "", "", 0);
        String header = shell.header();
        return new VerilogItem(
                shell.id(),
                d.spec(),
                d.ports(),
                d.sequential(),
                module(header, d.body()),
                d.wrongBodies().stream().map(b -> module(header, b)).toList(),
                "",
                d.brief(),
                d.briefReading());
    }

    private static String module(String header, String body) {
        return header + "\n" + body.strip().indent(2) + "endmodule\n";
    }

    // ---- combinational ----

    /**
     * A truth table in words, with y active high or active low (drawn). The tester reads which: "y is 1 exactly when
     * (a, b) is 01 or 10; otherwise y is 0", or "y is 0 exactly when ...; otherwise y is 1". The designer's brief lists
     * the same rows but not y's level there ("y is asserted exactly when (a, b) is 01 or 10; whether asserted is 1 or
     * 0 is not given here"), as a functional description leaves an output's polarity to the pin table, so a designer
     * alone must guess it and a team learns it from the tester's failing vectors. Read to the letter the brief is
     * active high ({@link VerilogItem#briefReading}: the reference, or the last wrong design where y is active low).
     * An active-low design is the active-high table inverted, {@code assign y = ~(...);}. The wrong designs: a row
     * flipped, the inputs read in reverse (where the table is symmetric, another row flipped), the other level.
     */
    private static Draft truthTable(SplittableRandom rng) {
        // at most MAX_ONES listed rows: a tester that writes one vector per listed row checks every one of them
        // within the configs' six vectors (maxTesterTests)
        int n = 2 + rng.nextInt(3);
        int rows = 1 << n;
        int ones;
        do {
            ones = rng.nextInt(1 << rows);
        } while (ones == 0 || ones == (1 << rows) - 1 || Integer.bitCount(ones) > MAX_ONES);
        boolean low = rng.nextBoolean();
        List<Port> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ports.add(Port.in(NAMES[i], 1));
        }
        ports.add(Port.out("y", 1));
        String vars = String.join(", ", List.of(NAMES).subList(0, n));
        String select = "{" + vars + "}";
        String listed = "(" + vars + ") is " + words(bitsOf(rowsOf(ones, rows), n));
        String spec =
                "y is " + (low ? "0" : "1") + " exactly when " + listed + "; otherwise y is " + (low ? "1" : "0") + ".";
        String brief = "y is asserted exactly when " + listed + "; whether asserted is 1 or 0 is not given here.";
        int flip = rng.nextInt(rows);
        int reversed = 0;
        for (int r = 0; r < rows; r++) {
            reversed |= (ones >> r & 1) << (Integer.reverse(r) >>> (32 - n));
        }
        if (reversed == ones) { // a symmetric table: the reversed reading is no mistake; flip another row instead
            reversed = ones ^ (1 << ((flip + 1) % rows));
        }
        return new Draft(
                spec,
                brief,
                low ? 3 : 0,
                ports,
                false,
                table(ones, n, select, low),
                List.of(
                        table(ones ^ (1 << flip), n, select, low),
                        table(reversed, n, select, low),
                        table(ones, n, select, !low)));
    }

    private static List<Integer> rowsOf(int ones, int rows) {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            if ((ones >> r & 1) == 1) {
                out.add(r);
            }
        }
        return out;
    }

    private static List<String> bitsOf(List<Integer> rows, int n) {
        return rows.stream().map(r -> bits(r, n)).toList();
    }

    /** One comparison per row where the table is asserted, ascending; active low: the same inverted. */
    private static String table(int ones, int n, String select, boolean low) {
        List<Integer> rows = rowsOf(ones, 1 << n);
        String high = rows.isEmpty()
                ? "0"
                : rows.stream().map(r -> select + "==" + n + "'b" + bits(r, n)).collect(Collectors.joining(" | "));
        return "assign y = " + (low ? "~(" + high + ")" : high) + ";";
    }

    // ---- arithmetic ----

    private static Draft arithmetic(SplittableRandom rng) {
        int w = 2 + rng.nextInt(4);
        long mod = 1L << w;
        List<Port> two = List.of(Port.in("a", w), Port.in("b", w));
        return switch (rng.nextInt(8)) {
            case 0 ->
                new Draft(
                        "y is a + b as a " + (w + 1) + "-bit number: the carry out of the sum is y's top bit.",
                        with(two, Port.out("y", w + 1)),
                        false,
                        "assign y = a + b;",
                        List.of("assign y = {1'b0, a + b};", "assign y = a - b;", "assign y = a | b;"));
            case 1 ->
                new Draft(
                        "y is a + b modulo " + mod + " (the carry is dropped).",
                        with(two, Port.out("y", w)),
                        false,
                        "assign y = a + b;",
                        List.of("assign y = a + b + 1;", "assign y = a ^ b;", "assign y = a - b;"));
            case 2 ->
                new Draft(
                        "y is a - b modulo " + mod + " (when b is larger, the difference wraps around).",
                        with(two, Port.out("y", w)),
                        false,
                        "assign y = a - b;",
                        List.of("assign y = b - a;", "assign y = a + b;", "assign y = (a > b) ? a - b : b - a;"));
            case 3 ->
                new Draft(
                        "y is 1 when a is greater than b (both unsigned), else 0.",
                        with(two, Port.out("y", 1)),
                        false,
                        "assign y = a > b;",
                        List.of("assign y = a >= b;", "assign y = a < b;", "assign y = $signed(a) > $signed(b);"));
            case 4 ->
                new Draft(
                        "y is the larger of a and b (both unsigned).",
                        with(two, Port.out("y", w)),
                        false,
                        "assign y = (a > b) ? a : b;",
                        List.of("assign y = (a < b) ? a : b;", "assign y = a;", "assign y = a | b;"));
            case 5 ->
                new Draft(
                        "y is 1 when a equals b, else 0.",
                        with(two, Port.out("y", 1)),
                        false,
                        "assign y = a == b;",
                        List.of("assign y = a != b;", "assign y = a[0] == b[0];", "assign y = (a & b) != 0;"));
            case 6 -> {
                int n = w + 1;
                int out = 32 - Integer.numberOfLeadingZeros(n);
                String sum = java.util.stream.IntStream.range(0, n)
                        .mapToObj(i -> "a[" + i + "]")
                        .collect(Collectors.joining(" + "));
                yield new Draft(
                        "y is the number of bits of a that are 1.",
                        List.of(Port.in("a", n), Port.out("y", out)),
                        false,
                        "assign y = " + sum.replace("a[0]", out + "'d0 + a[0]") + ";",
                        List.of(
                                "assign y = "
                                        + sum.replace("a[0]", out + "'d0 + !a[0]")
                                                .replaceAll("\\+ a\\[", "+ !a[") + ";",
                                "assign y = " + sum.replace("a[0] + ", out + "'d0 + ") + ";",
                                "assign y = a[" + (n - 1) + ":0] != 0;"));
            }
            default ->
                new Draft(
                        "y is a when s is 0, and b when s is 1.",
                        List.of(Port.in("s", 1), Port.in("a", w), Port.in("b", w), Port.out("y", w)),
                        false,
                        "assign y = s ? b : a;",
                        List.of("assign y = s ? a : b;", "assign y = a;", "assign y = a & b;"));
        };
    }

    // ---- sequential ----

    private static final List<Port> CLOCKED = List.of(Port.in("clk", 1), Port.in("reset", 1));
    /** How every clocked design's block begins (a demonstrated habit rewrites it: VerilogDemonstrations.Habits). */
    static final String RISING_EDGE = "always @(posedge clk)";
    /** How every clocked design tests its synchronous, active-high reset (the same). */
    static final String RESET_HIGH = "if (reset)";

    private static Draft counter(SplittableRandom rng) {
        int w = 2 + rng.nextInt(3);
        int mod = 3 + rng.nextInt((1 << w) - 3); // 3 .. 2^w - 1: at 2^w, wrapping one late is no mistake
        boolean up = rng.nextBoolean();
        boolean enable = rng.nextBoolean();
        String spec = "q counts " + (up ? "up" : "down") + " by 1 on each rising clock edge"
                + (enable ? " when en is 1 (when en is 0, q keeps its value)" : "") + ", through 0 to " + (mod - 1)
                + (up ? ": after " + (mod - 1) + " comes 0" : ": after 0 comes " + (mod - 1))
                + ". When reset is 1 at a rising edge, q becomes 0.";
        List<Port> ports = new ArrayList<>(CLOCKED);
        if (enable) {
            ports.add(Port.in("en", 1));
        }
        ports.add(Port.outReg("q", w));
        String guard = enable ? "else if (en) " : "else ";
        String next = up ? "q <= (q == " + (mod - 1) + ") ? 0 : q + 1;" : "q <= (q == 0) ? " + (mod - 1) + " : q - 1;";
        String late = up ? "q <= (q == " + mod + ") ? 0 : q + 1;" : "q <= (q == 0) ? " + mod + " : q - 1;";
        String other = up ? "q <= (q == 0) ? " + (mod - 1) + " : q - 1;" : "q <= (q == " + (mod - 1) + ") ? 0 : q + 1;";
        String third = enable ? seq("q <= 0;", "else ", next) : seq("q <= 1;", guard, next);
        return new Draft(
                spec,
                ports,
                true,
                seq("q <= 0;", guard, next),
                List.of(seq("q <= 0;", guard, late), seq("q <= 0;", guard, other), third));
    }

    private static String seq(String reset, String guard, String next) {
        return RISING_EDGE + "\n  " + RESET_HIGH + " " + reset + "\n  " + guard + next;
    }

    /**
     * A shift register, its serial input and its output named from {@link #SERIAL_INPUTS} and {@link #SHIFT_OUTPUTS}:
     * with widths and directions alone (eight wordings), the content split left some of them to one split only (a
     * 5-bit left shift never trained on).
     */
    private static Draft shifter(SplittableRandom rng) {
        int w = 3 + rng.nextInt(4);
        boolean left = rng.nextBoolean();
        String d = SERIAL_INPUTS[rng.nextInt(SERIAL_INPUTS.length)];
        String q = SHIFT_OUTPUTS[rng.nextInt(SHIFT_OUTPUTS.length)];
        String spec = "On each rising clock edge " + q + " shifts " + (left ? "left" : "right") + " by one bit and " + d
                + " enters" + (left ? " at bit 0 (the top bit falls out)" : " at bit " + (w - 1) + " (bit 0 falls out)")
                + ". When reset is 1 at a rising edge, " + q + " becomes 0.";
        List<Port> ports = List.of(Port.in("clk", 1), Port.in("reset", 1), Port.in(d, 1), Port.outReg(q, w));
        String top = q + "[" + (w - 2) + ":0]";
        String bottom = q + "[" + (w - 1) + ":1]";
        String l = "{" + top + ", " + d + "}";
        String r = "{" + d + ", " + bottom + "}";
        String lInv = "{" + top + ", ~" + d + "}";
        String rInv = "{~" + d + ", " + bottom + "}";
        String lRot = "{" + top + ", " + q + "[" + (w - 1) + "]}";
        String rRot = "{" + q + "[0], " + bottom + "}";
        return new Draft(
                spec,
                ports,
                true,
                shift(q, left ? l : r),
                List.of(shift(q, left ? r : l), shift(q, left ? lInv : rInv), shift(q, left ? lRot : rRot)));
    }

    private static String shift(String q, String next) {
        return RISING_EDGE + "\n  " + RESET_HIGH + " " + q + " <= 0;\n  else " + q + " <= " + next + ";";
    }

    /**
     * An edge detector: y is 1 after the input rises, falls or changes. Its input and output are named from
     * {@link #SERIAL_INPUTS} and {@link #EDGE_OUTPUTS}: with the three kinds alone, the content split put each kind in
     * one split only (training saw only "changes", validation only "falls", test only "rises"), so no held-out edge
     * detector could be learnt; with the names, every kind has 18 wordings and each split holds every kind. Its wrong
     * designs: the other two kinds, then the right kind that forgets the input ({@code p <= 0}); the first three
     * readings are the three kinds ({@link #edgeDetector}).
     */
    private static Draft edge(SplittableRandom rng) {
        int kind = rng.nextInt(3);
        String d = SERIAL_INPUTS[rng.nextInt(SERIAL_INPUTS.length)];
        String y = EDGE_OUTPUTS[rng.nextInt(EDGE_OUTPUTS.length)];
        String[] what = {
            "rises (was 0 at the edge before, is 1 now)",
            "falls (was 1 at the edge before, is 0 now)",
            "changes (differs from its value at the edge before)"
        };
        String[] expr = {d + " & ~p", "~" + d + " & p", d + " ^ p"};
        String spec = EDGE_SPEC + y + " becomes 1 if " + d + " " + what[kind] + ", else 0. When reset is 1 at a"
                + " rising edge, " + y + " becomes 0 and " + d + "'s earlier value counts as 0.";
        List<Port> ports = List.of(Port.in("clk", 1), Port.in("reset", 1), Port.in(d, 1), Port.outReg(y, 1));
        List<String> wrong = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            if (k != kind) {
                wrong.add(edgeBody(y, expr[k], "p <= " + d + ";"));
            }
        }
        wrong.add(edgeBody(y, expr[kind], "p <= 0;"));
        return new Draft(spec, ports, true, edgeBody(y, expr[kind], "p <= " + d + ";"), wrong);
    }

    private static String edgeBody(String y, String expr, String remember) {
        return "reg p;\n" + RISING_EDGE + "\n  " + RESET_HIGH + " begin " + y + " <= 0; p <= 0; end\n  else begin " + y
                + " <= " + expr + "; " + remember + " end";
    }

    /**
     * Whether a generated problem is an edge detector, whose first three readings (the reference and its first two
     * wrong designs) are the three kinds of edge.
     */
    static boolean edgeDetector(VerilogItem item) {
        return item.harness().isEmpty() && item.spec().startsWith(EDGE_SPEC);
    }

    // ---- helpers ----

    private static List<Port> with(List<Port> inputs, Port out) {
        List<Port> ports = new ArrayList<>(inputs);
        ports.add(out);
        return ports;
    }

    private static String bits(int value, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = n - 1; i >= 0; i--) {
            sb.append(value >> i & 1);
        }
        return sb.toString();
    }

    private static String words(List<String> items) {
        if (items.size() == 1) {
            return items.get(0);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " or " + items.get(items.size() - 1);
    }
}

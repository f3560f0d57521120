package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.envs.verilog.Bench.Stream;
import org.pettingllms.envs.verilog.Vectors.Vector;

/**
 * Judges designs and testbenches by simulation. A design is equivalent to the reference when it prints the
 * reference's outputs at every step of the hidden bench ({@link Stimulus}), or, for a dataset row with its own
 * harness, when the harness counts no mismatch. Untrusted designs are simulated apart from every reference: a
 * design's run holds the design, the bench and the stimulus only (a dataset harness carries its reference, as the
 * benchmark requires), and its sources are removed before the simulation starts. A tester's vectors are run on the
 * reference and the item's wrong designs in one trusted simulation.
 */
final class Judge {
    private static final Pattern MISMATCHES = Pattern.compile("Mismatches: (\\d+) in (\\d+) samples");
    private static final Pattern MODULE_TOP = Pattern.compile("\\bmodule\\s+" + VerilogItem.TOP + "\\b");

    private final Icarus icarus;
    /** The reference's and wrong designs' outputs on the hidden bench, by item id (trusted, deterministic: once). */
    private final Map<String, List<List<String>>> expected = new ConcurrentHashMap<>();
    /** A dataset harness's verdict on its own reference, by item id. */
    private final Map<String, long[]> samples = new ConcurrentHashMap<>();

    /** The modules a design may not name on a dataset row's harness path, by item id. */
    private final Map<String, Set<String>> foreign = new ConcurrentHashMap<>();

    private final SplittableRandom nonces = new SplittableRandom();

    Judge(Icarus icarus) {
        this.icarus = icarus;
    }

    /** A failed tester vector, as the designer reads it. */
    record Mismatch(String inputs, String expected, String got) {}

    /**
     * @param hiddenPass share of the hidden bench's steps the design gets right (0 when it does not compile or run)
     * @param equivalent whether it passes all of them
     * @param mismatches the tester's vectors the design fails
     * @param problem    why it did not run, or empty
     */
    record DesignVerdict(double hiddenPass, boolean equivalent, List<Mismatch> mismatches, String problem) {
        boolean runs() {
            return problem.isEmpty();
        }
    }

    /**
     * @param referencePass share of the vectors the reference passes
     * @param caught        share of the item's wrong designs that fail a vector the reference passes (0 without any)
     */
    record BenchVerdict(double referencePass, double caught) {}

    DesignVerdict design(VerilogItem item, String design, List<Vector> tests) {
        return design(item, design, tests, true);
    }

    /** The design's failures on the tester's vectors alone (no hidden bench: its pass share is 0). */
    DesignVerdict testsOnly(VerilogItem item, String design, List<Vector> tests) {
        return design(item, design, tests, false);
    }

    private DesignVerdict design(VerilogItem item, String written, List<Vector> tests, boolean judged) {
        // what is checked is what Icarus compiles: line ends made newlines as its preprocessor makes them, no BOM
        String design = VerilogTokens.newlines(written.startsWith("\uFEFF") ? written.substring(1) : written);
        java.util.Optional<String> early = DesignLint.beforePreprocessing(design);
        if (early.isPresent()) {
            return new DesignVerdict(0, false, List.of(), early.get());
        }
        if (DesignLint.needsPreprocessing(design)) { // then the expansion is what is checked and compiled
            Icarus.Simulation expanded = icarus.preprocess(design);
            if (!expanded.ok()) {
                return new DesignVerdict(0, false, List.of(), expanded.summary());
            }
            design = expanded.stdout();
        }
        if (!MODULE_TOP.matcher(design).find()) {
            return new DesignVerdict(0, false, List.of(), "no module " + VerilogItem.TOP);
        }
        boolean harness = judged && !item.harness().isEmpty();
        java.util.Optional<String> refused = DesignLint.check(design, foreign(item, harness));
        if (refused.isPresent()) {
            return new DesignVerdict(0, false, List.of(), refused.get());
        }
        List<Stream> streams = new ArrayList<>();
        if (judged && !harness) {
            streams.add(new Stream(VerilogItem.TOP, Stimulus.hidden(item)));
        }
        if (!tests.isEmpty()) {
            streams.add(new Stream(
                    VerilogItem.TOP, tests.stream().map(Vector::values).toList()));
        }
        List<List<String>> printed = List.of();
        if (!streams.isEmpty()) {
            String nonce = nonce();
            Map<String, String> files = new LinkedHashMap<>(Bench.files(item, streams));
            files.put("design.sv", design);
            Icarus.Simulation sim = icarus.simulate(files, List.of(Bench.TOP), nonce);
            if (!sim.ok()) {
                return new DesignVerdict(0, false, List.of(), sim.summary());
            }
            if (drivesItsInputs(sim)) {
                return new DesignVerdict(0, false, List.of(), DRIVES_INPUTS);
            }
            printed = Bench.outputs(sim.stdout(), nonce, streams);
        }
        double pass;
        if (harness) {
            HarnessRun run = harness(item, design, false);
            if (!run.sim().ok()) {
                return new DesignVerdict(0, false, List.of(), run.sim().summary());
            }
            if (drivesItsInputs(run.sim())) {
                return new DesignVerdict(0, false, List.of(), DRIVES_INPUTS);
            }
            long[] verdict = harnessVerdict(run.sim().stdout(), run.nonce());
            long[] own = referenceSamples(item);
            // the reference's own count of samples: a design that ends the bench early is caught short of it
            pass = verdict == null || verdict[1] != own[1] || verdict[0] > verdict[1]
                    ? 0
                    : (double) (verdict[1] - verdict[0]) / verdict[1];
        } else if (!judged) {
            pass = 0;
        } else {
            List<String> want = expected(item);
            int right = 0;
            for (int i = 0; i < want.size(); i++) {
                if (want.get(i).equals(printed.get(0).get(i))) {
                    right++;
                }
            }
            pass = (double) right / want.size();
        }
        List<Mismatch> mismatches = new ArrayList<>();
        if (!tests.isEmpty()) {
            List<String> got = printed.get(printed.size() - 1);
            for (int i = 0; i < tests.size(); i++) {
                if (!passes(item, tests.get(i), got.get(i))) {
                    mismatches.add(mismatch(item, tests.get(i), got.get(i)));
                }
            }
        }
        return new DesignVerdict(pass, pass == 1.0, mismatches, "");
    }

    private static final String DRIVES_INPUTS =
            "refused: the design drives one of its inputs (Icarus made the port an inout); a design drives its outputs only";

    /** Whether Icarus coerced a port to inout: the design drove its own input, which the bench also drives. */
    private static boolean drivesItsInputs(Icarus.Simulation sim) {
        return sim.log().contains("coerced to inout");
    }

    /**
     * The modules a design is compiled beside, which it may not name: the bench's, and on a dataset row's harness
     * path the harness's and the reference's own (the reference's top is renamed {@code RefModule}).
     */
    private Set<String> foreign(VerilogItem item, boolean harness) {
        if (!harness) {
            return Set.of(Bench.TOP);
        }
        return foreign.computeIfAbsent(item.id(), id -> {
            Set<String> names = new TreeSet<>(DesignLint.declaredModules(item.harness()));
            names.addAll(DesignLint.declaredModules(item.reference()));
            names.remove(VerilogItem.TOP);
            names.add(Bench.TOP);
            names.add(NONCE_MODULE);
            return Set.copyOf(names);
        });
    }

    private record HarnessRun(Icarus.Simulation sim, String nonce) {}

    /** The root module that holds a harness run's nonce, read from the simulator's plus-arguments. */
    static final String NONCE_MODULE = "pettingllms_nonce";

    private static final String NONCE_SOURCE = "module " + NONCE_MODULE + ";\n  reg [8*24:1] " + Bench.NONCE + ";\n"
            + "  initial " + Bench.READ_NONCE + "\nendmodule\n";

    /** A harness's verdict string, {@code "Mismatches: ..."}, up to its closing quote. */
    private static final Pattern VERDICT_STRING = Pattern.compile("\"Mismatches:((?:[^\"\\\\\\n]|\\\\.)*)\"");

    /**
     * The harness run with {@code design} as {@code TopModule}. Its verdict line is marked with a fresh nonce that
     * reaches the simulation as a plus-argument ({@link #NONCE_MODULE}): the harness prints {@code <nonce>
     * Mismatches: ...}, and neither its source nor the compiled simulation holds the nonce.
     */
    private HarnessRun harness(VerilogItem item, String design, boolean trusted) {
        String nonce = nonce();
        Map<String, String> files = new LinkedHashMap<>(); // compiled in this order: the design's directives last
        files.put("ref.sv", item.reference().replaceFirst(MODULE_TOP.pattern(), "module RefModule"));
        files.put(
                "test.sv",
                VERDICT_STRING
                        .matcher(item.harness())
                        .replaceAll(m -> Matcher.quoteReplacement(
                                "\"%0s Mismatches:" + m.group(1) + "\", " + NONCE_MODULE + "." + Bench.NONCE)));
        files.put("nonce.sv", NONCE_SOURCE); // after the harness: its `timescale carries into this module too
        files.put("design.sv", design);
        List<String> tops = List.of("tb", NONCE_MODULE);
        return new HarnessRun(trusted ? trustedRun(files, tops, nonce) : icarus.simulate(files, tops, nonce), nonce);
    }

    /**
     * A simulation of trusted designs only (references, wrong designs, a dataset's harness), run again once when a limit
     * stopped it (a loaded machine); its failure is the dataset's or the generator's fault and is thrown.
     */
    private Icarus.Simulation trustedRun(Map<String, String> files, List<String> tops, String nonce) {
        Icarus.Simulation sim = icarus.simulate(files, tops, nonce);
        return sim.status() == Icarus.Status.LIMIT ? icarus.simulate(files, tops, nonce) : sim;
    }

    /** A harness run of the reference as the design: its sample count, once per item. */
    private long[] referenceSamples(VerilogItem item) {
        return samples.computeIfAbsent(item.id(), id -> {
            HarnessRun run = harness(item, item.reference(), true);
            Icarus.Simulation sim = run.sim();
            long[] v = sim.ok() ? harnessVerdict(sim.stdout(), run.nonce()) : null;
            if (v == null || v[0] != 0 || v[1] == 0) {
                throw new IllegalStateException(id + ": the reference does not pass its own harness: "
                        + (sim.ok() ? sim.stdout().strip() : sim.summary()));
            }
            return v;
        });
    }

    /**
     * {mismatches, samples} from the one {@code <nonce> Mismatches: N in M samples} line of a harness run; null when
     * there is not exactly one.
     */
    static long[] harnessVerdict(String stdout, String nonce) {
        long[] found = null;
        for (String line : stdout.split("\n")) {
            if (line.startsWith(nonce + " ")) {
                Matcher m = MISMATCHES.matcher(line);
                if (m.find()) {
                    if (found != null) {
                        return null;
                    }
                    try {
                        found = new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
                    } catch (NumberFormatException tooLong) { // a count no harness prints: not a verdict
                        return null;
                    }
                }
            }
        }
        return found;
    }

    BenchVerdict bench(VerilogItem item, List<Vector> tests) {
        if (tests.isEmpty()) {
            return new BenchVerdict(0, 0);
        }
        List<String> designs = new ArrayList<>();
        designs.add(item.reference());
        designs.addAll(item.mutants());
        List<List<String>> printed =
                trusted(item, designs, tests.stream().map(Vector::values).toList());
        boolean[] good = new boolean[tests.size()];
        int refPass = 0;
        for (int i = 0; i < tests.size(); i++) {
            good[i] = passes(item, tests.get(i), printed.get(0).get(i));
            refPass += good[i] ? 1 : 0;
        }
        int caught = 0;
        for (int k = 1; k < designs.size(); k++) {
            for (int i = 0; i < tests.size(); i++) {
                if (good[i] && !passes(item, tests.get(i), printed.get(k).get(i))) {
                    caught++;
                    break;
                }
            }
        }
        return new BenchVerdict(
                (double) refPass / tests.size(),
                item.mutants().isEmpty() ? 0 : (double) caught / item.mutants().size());
    }

    /**
     * The outputs of trusted designs (the reference, the item's wrong designs: module {@code TopModule} each) at each
     * of {@code steps}, per design.
     */
    List<List<String>> trusted(VerilogItem item, List<String> designs, List<BigInteger[]> steps) {
        List<Stream> streams = new ArrayList<>();
        Map<String, String> files = new LinkedHashMap<>();
        for (int k = 0; k < designs.size(); k++) {
            String module = "Candidate" + k;
            files.put(module + ".v", rename(designs.get(k), module));
            streams.add(new Stream(module, steps));
        }
        String nonce = nonce();
        files.putAll(Bench.files(item, streams));
        Icarus.Simulation sim = trustedRun(files, List.of(Bench.TOP), nonce);
        if (!sim.ok()) {
            throw new IllegalStateException(item.id() + ": the reference designs do not simulate: " + sim.summary());
        }
        return Bench.outputs(sim.stdout(), nonce, streams);
    }

    /** The reference's outputs on the hidden bench (computed once per item, with the wrong designs'). */
    List<String> expected(VerilogItem item) {
        return readings(item).get(0);
    }

    /**
     * The outputs of the reference, then of each of the item's wrong designs, on the hidden bench, by step: one trusted
     * simulation per item, remembered (what the reference expects, and what each misreading would print).
     */
    List<List<String>> readings(VerilogItem item) {
        return expected.computeIfAbsent(item.id(), id -> {
            List<String> designs = new ArrayList<>();
            designs.add(item.reference());
            designs.addAll(item.mutants());
            List<List<String>> out = trusted(item, designs, Stimulus.hidden(item));
            if (out.get(0).contains(null)) {
                throw new IllegalStateException(id + ": the reference design stopped before the hidden bench's end");
            }
            return out.stream()
                    .map(l -> java.util.Collections.unmodifiableList(new ArrayList<>(l)))
                    .toList();
        });
    }

    static boolean passes(VerilogItem item, Vector v, String printed) {
        if (printed == null) {
            return false;
        }
        String[] bits = printed.split(" ");
        List<Port> outs = item.outputs();
        for (Map.Entry<Integer, BigInteger> e : v.expected().entrySet()) {
            int j = e.getKey();
            if (j >= bits.length || !bits[j].equals(outs.get(j).bits(e.getValue()))) {
                return false;
            }
        }
        return true;
    }

    static Mismatch mismatch(VerilogItem item, Vector v, String printed) {
        List<Port> outs = item.outputs();
        String[] bits = printed == null ? new String[0] : printed.split(" ");
        List<String> want = new ArrayList<>();
        List<String> got = new ArrayList<>();
        for (Map.Entry<Integer, BigInteger> e : v.expected().entrySet()) {
            int j = e.getKey();
            want.add(outs.get(j).name() + "=" + e.getValue());
            got.add(outs.get(j).name() + "=" + (j < bits.length ? decimal(bits[j]) : "?"));
        }
        return new Mismatch(v.row(item), String.join(" ", want), String.join(" ", got));
    }

    /** Printed bits as a decimal number, or as printed when some are x or z. */
    static String decimal(String bits) {
        return bits.matches("[01]+") ? new BigInteger(bits, 2).toString() : bits;
    }

    static String rename(String design, String module) {
        return MODULE_TOP.matcher(design).replaceFirst("module " + module);
    }

    private synchronized String nonce() {
        return "@" + Long.toHexString(nonces.nextLong() | 1L << 62);
    }
}

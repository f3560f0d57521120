package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The testbench the judge generates: one instance of a module per stream of input steps, each instance with its own
 * inputs (so each starts from power-on), all on one clock. A step sets the instance's driven inputs from its stimulus
 * file ({@code $readmemh}), lets them settle (and, for a sequential module, raises the clock), then prints the outputs
 * as {@code <nonce> <stream> <step> <bits> ...}. The nonce is drawn per run and reaches the bench as a plus-argument
 * ({@link #NONCE}, read with {@code $value$plusargs}), not in its source: a design that prints lines of its own cannot
 * forge the bench's, and the compiled simulation does not hold it.
 */
final class Bench {
    static final String TOP = "pettingllms_bench";
    /** The bench's variable that holds the nonce (24 characters at most), read from {@code +pettingllms_nonce=}. */
    static final String NONCE = "pettingllms_nonce";
    /** Reads the nonce from the simulator's plus-arguments into {@link #NONCE}; the first statement of an initial block. */
    static final String READ_NONCE =
            "if (!$value$plusargs(\"pettingllms_nonce=%s\", " + NONCE + ")) " + NONCE + " = \"\";";

    /** One instance: the module it instantiates and the driven inputs' values at each step. */
    record Stream(String module, List<BigInteger[]> steps) {}

    private Bench() {}

    /** The bench source ({@code bench.v}) and each stream's stimulus file ({@code stim<k>.hex}). */
    static Map<String, String> files(VerilogItem item, List<Stream> streams) {
        List<Port> driven = item.driven();
        int width = Math.max(1, driven.stream().mapToInt(Port::width).sum()); // a module may have no inputs
        int steps = streams.stream().mapToInt(s -> s.steps().size()).max().orElse(0);
        StringBuilder v = new StringBuilder("`timescale 1ns/1ns\nmodule " + TOP + ";\n");
        if (item.sequential()) {
            v.append("  reg clk = 0;\n");
        }
        v.append("  integer i;\n  reg [8*24:1] " + NONCE + ";\n");
        Map<String, String> files = new LinkedHashMap<>();
        for (int k = 0; k < streams.size(); k++) {
            Stream s = streams.get(k);
            int n = Math.max(1, s.steps().size());
            // inputs start unknown and take their first values at time 1, when every always block of the design
            // waits: the change from x wakes its always @(*) blocks
            v.append("  reg [%d:0] stim%d [0:%d];\n  reg [%d:0] in%d;\n".formatted(width - 1, k, n - 1, width - 1, k));
            List<String> conns = new ArrayList<>();
            int hi = width - 1;
            for (Port p : item.ports()) {
                if (item.sequential() && p.name().equals("clk")) {
                    conns.add(".clk(clk)");
                } else if (p.input()) {
                    conns.add(".%s(in%d[%d:%d])".formatted(p.name(), k, hi, hi - p.width() + 1));
                    hi -= p.width();
                } else {
                    v.append("  wire [%d:0] o%d_%s;\n".formatted(p.width() - 1, k, p.name()));
                    conns.add(".%s(o%d_%s)".formatted(p.name(), k, p.name()));
                }
            }
            v.append("  %s u%d(%s);\n".formatted(s.module(), k, String.join(", ", conns)));
            files.put("stim" + k + ".hex", hex(s.steps(), driven));
        }
        v.append("  initial begin\n    " + READ_NONCE + "\n");
        for (int k = 0; k < streams.size(); k++) {
            v.append("    $readmemh(\"stim%d.hex\", stim%d);\n".formatted(k, k));
        }
        v.append("    #1;\n    for (i = 0; i < %d; i = i + 1) begin\n".formatted(steps));
        for (int k = 0; k < streams.size(); k++) {
            v.append("      if (i < %d) in%d = stim%d[i];\n"
                    .formatted(streams.get(k).steps().size(), k, k));
        }
        v.append(item.sequential() ? "      #1 clk = 1;\n      #1;\n" : "      #1;\n");
        for (int k = 0; k < streams.size(); k++) {
            List<Port> outs = item.outputs();
            String format = "%0s " + k + " %0d" + " %b".repeat(outs.size());
            StringBuilder args = new StringBuilder();
            for (Port p : outs) {
                args.append(", o").append(k).append('_').append(p.name());
            }
            v.append("      if (i < %d) $display(\"%s\", %s, i%s);\n"
                    .formatted(streams.get(k).steps().size(), format, NONCE, args));
        }
        if (item.sequential()) {
            v.append("      clk = 0;\n      #1;\n");
        }
        v.append("    end\n    $finish;\n  end\nendmodule\n");
        files.put("bench.v", v.toString());
        return files;
    }

    /** The steps' driven values packed in port order (the first port in the highest bits), one hex word a line. */
    static String hex(List<BigInteger[]> steps, List<Port> driven) {
        StringBuilder sb = new StringBuilder();
        for (BigInteger[] step : steps) {
            BigInteger word = BigInteger.ZERO;
            for (int j = 0; j < driven.size(); j++) {
                word = word.shiftLeft(driven.get(j).width()).or(step[j]);
            }
            sb.append(word.toString(16)).append('\n');
        }
        return sb.isEmpty() ? "0\n" : sb.toString();
    }

    /**
     * The outputs each stream printed, by step ({@code "0101 1"}: each output's bits, in port order); null where the
     * simulation printed nothing for a step (it stopped early).
     */
    static List<List<String>> outputs(String stdout, String nonce, List<Stream> streams) {
        List<List<String>> out = new ArrayList<>();
        for (Stream s : streams) {
            List<String> steps = new ArrayList<>();
            for (int i = 0; i < s.steps().size(); i++) {
                steps.add(null);
            }
            out.add(steps);
        }
        String prefix = nonce + " ";
        for (String line : stdout.split("\n")) {
            if (!line.startsWith(prefix)) {
                continue; // the design's own prints
            }
            String[] f = line.substring(prefix.length()).strip().split(" ", 3);
            if (f.length < 3) {
                continue;
            }
            try {
                int k = Integer.parseInt(f[0]);
                int i = Integer.parseInt(f[1]);
                if (k >= 0
                        && k < out.size()
                        && i >= 0
                        && i < out.get(k).size()
                        && out.get(k).get(i) == null) {
                    out.get(k).set(i, f[2].strip());
                }
            } catch (NumberFormatException e) {
                // not a line of ours
            }
        }
        return out;
    }
}

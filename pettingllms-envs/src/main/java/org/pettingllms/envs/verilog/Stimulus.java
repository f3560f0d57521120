package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The hidden testbench's input steps: every input combination of a combinational module with up to
 * {@value #EXHAUSTIVE_BITS} input bits (else {@value #RANDOM_STEPS} random ones); for a sequential module, random
 * sequences from a reset: reset held for the first two cycles and raised again now and then.
 */
final class Stimulus {
    static final int EXHAUSTIVE_BITS = 10;
    static final int RANDOM_STEPS = 512;
    static final int CYCLES = 96;

    private Stimulus() {}

    static List<BigInteger[]> hidden(VerilogItem item) {
        List<Port> driven = item.driven();
        SplittableRandom rng = new SplittableRandom(item.id().hashCode() * 0x9E3779B97F4A7C15L);
        List<BigInteger[]> steps = new ArrayList<>();
        if (!item.sequential()) {
            int bits = driven.stream().mapToInt(Port::width).sum();
            if (bits <= EXHAUSTIVE_BITS) {
                for (long w = 0; w < 1L << bits; w++) {
                    steps.add(unpack(w, driven));
                }
            } else {
                for (int i = 0; i < RANDOM_STEPS; i++) {
                    steps.add(random(driven, rng));
                }
            }
            return steps;
        }
        int reset = driven.indexOf(Port.in("reset", 1));
        for (int i = 0; i < CYCLES; i++) {
            BigInteger[] step = random(driven, rng);
            if (reset >= 0) {
                step[reset] = i < 2 || rng.nextInt(16) == 0 ? BigInteger.ONE : BigInteger.ZERO;
            }
            steps.add(step);
        }
        return steps;
    }

    private static BigInteger[] random(List<Port> driven, SplittableRandom rng) {
        BigInteger[] step = new BigInteger[driven.size()];
        for (int j = 0; j < step.length; j++) {
            BigInteger v = BigInteger.ZERO;
            for (int bits = 0; bits < driven.get(j).width(); bits += 62) {
                int n = Math.min(62, driven.get(j).width() - bits);
                v = v.shiftLeft(n).or(BigInteger.valueOf(rng.nextLong() & ((1L << n) - 1)));
            }
            step[j] = v;
        }
        return step;
    }

    /** The ports' values packed in {@code w} (the first port in the highest bits). */
    private static BigInteger[] unpack(long w, List<Port> driven) {
        BigInteger[] step = new BigInteger[driven.size()];
        for (int j = driven.size() - 1; j >= 0; j--) {
            step[j] = BigInteger.valueOf(w & ((1L << driven.get(j).width()) - 1));
            w >>>= driven.get(j).width();
        }
        return step;
    }
}

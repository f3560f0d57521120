package org.pettingllms.envs.verilog;

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

    static List<long[]> hidden(VerilogItem item) {
        List<Port> driven = item.driven();
        SplittableRandom rng = new SplittableRandom(item.id().hashCode() * 0x9E3779B97F4A7C15L);
        List<long[]> steps = new ArrayList<>();
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
            long[] step = random(driven, rng);
            if (reset >= 0) {
                step[reset] = i < 2 || rng.nextInt(16) == 0 ? 1 : 0;
            }
            steps.add(step);
        }
        return steps;
    }

    private static long[] random(List<Port> driven, SplittableRandom rng) {
        long[] step = new long[driven.size()];
        for (int j = 0; j < step.length; j++) {
            step[j] = rng.nextLong() & driven.get(j).max();
        }
        return step;
    }

    /** The ports' values packed in {@code w} (the first port in the highest bits). */
    private static long[] unpack(long w, List<Port> driven) {
        long[] step = new long[driven.size()];
        for (int j = driven.size() - 1; j >= 0; j--) {
            step[j] = w & driven.get(j).max();
            w >>>= driven.get(j).width();
        }
        return step;
    }
}

package org.pettingllms.envs.verilog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What judging a design costs: the reference design of generated circuits judged as a designer's answer (lint,
 * compile, simulate the hidden bench, compare), one at a time (latency, by kind of module) and with every slot busy
 * (judgements/s). The references' own outputs are computed before the clock starts, as a run computes them once.
 */
public final class VerilogBench {
    private VerilogBench() {}

    public static Map<String, Object> run(int judgements, int slots) throws Exception {
        Icarus icarus = Icarus.open(slots, Icarus.LIMITS);
        Judge judge = new Judge(icarus);
        List<VerilogItem> items = new ArrayList<>();
        for (long seed = 0; items.size() < Math.max(8, judgements); seed++) {
            items.add(Circuits.item(seed));
        }
        for (VerilogItem item : items) {
            judge.expected(item);
        }
        List<Long> combinational = new ArrayList<>();
        List<Long> sequential = new ArrayList<>();
        for (VerilogItem item : items.subList(0, Math.max(4, judgements / 4))) {
            long t = System.nanoTime();
            check(judge.design(item, item.reference(), List.of()), item);
            (item.sequential() ? sequential : combinational).add((System.nanoTime() - t) / 1_000_000);
        }
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Judge.DesignVerdict>> runs = new ArrayList<>();
            for (VerilogItem item : items.subList(0, judgements)) {
                runs.add(pool.submit(() -> judge.design(item, item.reference(), List.of())));
            }
            for (int i = 0; i < judgements; i++) {
                check(runs.get(i).get(), items.get(i));
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("isolation", icarus.isolation().name());
        out.put("slots", slots);
        out.put("judgements", judgements);
        out.put("latency_ms_median_combinational", median(combinational));
        out.put("latency_ms_median_sequential", median(sequential));
        out.put("judgements_per_s", Math.round(judgements / seconds * 10) / 10.0);
        return out;
    }

    private static long median(List<Long> ms) {
        if (ms.isEmpty()) {
            return -1;
        }
        long[] a = ms.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a[a.length / 2];
    }

    private static void check(Judge.DesignVerdict v, VerilogItem item) {
        if (!v.equivalent()) {
            throw new IllegalStateException(
                    item.id() + ": the reference was not judged equivalent to itself: " + v.problem());
        }
    }
}

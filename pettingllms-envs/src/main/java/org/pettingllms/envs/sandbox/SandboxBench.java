package org.pettingllms.envs.sandbox;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Sandbox throughput for a trivial program: one at a time (latency) and with every slot busy (executions/s). */
public final class SandboxBench {
    private SandboxBench() {}

    public static Map<String, Object> run(int executions, int slots) throws Exception {
        Sandbox box = Sandbox.create(SandboxLimits.DEFAULT, slots);
        String program = "print(int(input()) + 1)";
        for (int i = 0; i < 5; i++) {
            box.run(program, "1\n"); // warm-up: page cache, JIT
        }
        long[] ms = new long[Math.max(1, executions / 4)];
        for (int i = 0; i < ms.length; i++) {
            long t = System.nanoTime();
            check(box.run(program, i + "\n"), i);
            ms[i] = (System.nanoTime() - t) / 1_000_000;
        }
        Arrays.sort(ms);
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Execution>> runs = new ArrayList<>();
            for (int i = 0; i < executions; i++) {
                int n = i;
                runs.add(pool.submit(() -> box.run(program, n + "\n")));
            }
            for (int i = 0; i < executions; i++) {
                check(runs.get(i).get(), i);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("isolation", box.isolation().name());
        out.put("slots", slots);
        out.put("executions", executions);
        out.put("latency_ms_median", ms[ms.length / 2]);
        out.put("latency_ms_p90", ms[(int) (ms.length * 0.9)]);
        out.put("executions_per_s", Math.round(executions / seconds * 10) / 10.0);
        return out;
    }

    private static void check(Execution e, int i) {
        if (!e.ok() || !e.stdout().strip().equals(Integer.toString(i + 1))) {
            throw new IllegalStateException("benchmark program failed: " + e.summary());
        }
    }
}

package org.pettingllms.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * {@code bench soak}: the main config trained for many steps (no validation, one checkpoint at the end) with the
 * process's resident memory every {@code every} steps, to show that memory settles: the growth from step 50 to the
 * last step must stay under 5%. Resident memory is read from {@code /proc/self/status} (Linux).
 */
final class SoakBench {
    private SoakBench() {}

    static Map<String, Object> run(Path config, Map<String, String> env, int steps, int every, PrintWriter progress)
            throws IOException {
        if (steps < 1 || every < 1) {
            throw new IllegalArgumentException("--steps and --every must be >= 1, got " + steps + " and " + every);
        }
        if (status("VmRSS") < 0) {
            throw new IllegalArgumentException("bench soak reads resident memory from /proc/self/status (Linux)");
        }
        RunSetup setup = RunSetup.load(
                config,
                List.of(
                        "train.steps=" + steps,
                        "train.validateEvery=0",
                        "train.checkpointEvery=0",
                        "validation.problems=0",
                        "run.name=soak"),
                env,
                HubResolver.ModelFiles.ALL);
        RunConfig cfg = setup.config();
        Path runDir = Files.createTempDirectory("pettingllms-soak");
        List<Map<String, Object>> samples = new ArrayList<>();
        long start = System.nanoTime();
        try (EmbeddedEngine engine = EmbeddedEngine.open(cfg, setup.policies())) {
            samples.add(sample(0, start));
            new Trainer(
                            cfg,
                            setup.task(),
                            setup.task().problems(cfg.run().seed()),
                            setup.policies(),
                            engine.sampler(),
                            engine.learner(),
                            runDir)
                    .run(false, m -> {
                        int done = m.step() + 1;
                        if (done % every == 0 || done == steps) {
                            Map<String, Object> s = sample(done, start);
                            samples.add(s);
                            progress.println(json(s));
                            progress.flush();
                        }
                    });
        } finally {
            AtomicFiles.deleteTree(runDir);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("benchmark", "soak");
        out.put("config", config.toString());
        out.put("steps", steps);
        out.put("samples", samples);
        Map<String, Object> at50 = samples.stream()
                .filter(s -> ((Integer) s.get("step")) >= 50)
                .findFirst()
                .orElse(null);
        Map<String, Object> last = samples.get(samples.size() - 1);
        if (at50 != null && at50 != last) {
            double from = ((Number) at50.get("rss_mb")).doubleValue();
            double to = ((Number) last.get("rss_mb")).doubleValue();
            out.put("growth_after_step_" + at50.get("step") + "_pct", Math.round(1000 * (to - from) / from) / 10.0);
        }
        out.put("peak_rss_mb", last.get("peak_rss_mb"));
        return out;
    }

    private static String json(Map<String, Object> s) {
        try {
            return new ObjectMapper().writeValueAsString(s);
        } catch (JsonProcessingException e) {
            return s.toString();
        }
    }

    private static Map<String, Object> sample(int step, long start) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("step", step);
        s.put("seconds", Math.round((System.nanoTime() - start) / 1e8) / 10.0);
        s.put("rss_mb", status("VmRSS"));
        s.put("peak_rss_mb", status("VmHWM"));
        Runtime rt = Runtime.getRuntime();
        s.put("java_heap_used_mb", (rt.totalMemory() - rt.freeMemory()) >> 20);
        return s;
    }

    /** A {@code /proc/self/status} memory line in MiB, or -1 where there is none (not Linux). */
    static long status(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(key + ":")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) >> 10;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }
}

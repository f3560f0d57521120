package org.pettingllms.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.train.MlflowTracker;
import picocli.CommandLine;

/**
 * {@code train}'s tracking server: with {@code MLFLOW_TRACKING_URI} set (and {@code MLFLOW_EXPERIMENT_NAME}, default
 * {@code pettingllms}), the run's resolved config as params (dotted keys: {@code train.learningRate}), each step's
 * numbers as metrics, and at the end {@code run.json}, {@code metrics.jsonl} and the report ({@code report.html},
 * written first) as artifacts, as MLflow's own loggers name them.
 */
final class Tracking {
    private Tracking() {}

    /** The run on the tracking server, or null when none is set. */
    static MlflowTracker start(Map<String, String> env, RunConfig cfg, String taskId) {
        String uri = env.get("MLFLOW_TRACKING_URI");
        if (uri == null || uri.isBlank()) {
            return null;
        }
        String experiment = env.getOrDefault("MLFLOW_EXPERIMENT_NAME", "pettingllms");
        return MlflowTracker.start(
                uri,
                experiment.isBlank() ? "pettingllms" : experiment,
                cfg.run().name(),
                params(cfg),
                Map.of(
                        "pettingllms.task",
                        taskId,
                        "pettingllms.level",
                        cfg.policy().level().name()));
    }

    /** The config's values under dotted keys; lists as JSON. */
    static Map<String, String> params(RunConfig cfg) {
        Map<String, String> out = new LinkedHashMap<>();
        flatten("", ConfigLoader.toTree(cfg), out);
        return out;
    }

    private static void flatten(String prefix, JsonNode n, Map<String, String> out) {
        if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), out);
            }
        } else if (n.isArray()) {
            out.put(prefix, n.toString());
        } else if (!n.isNull()) {
            out.put(prefix, n.asText());
        }
    }

    /** Writes the report, uploads the run's files and ends the tracked run. */
    static void finish(MlflowTracker t, Path runDir, boolean ok, PrintWriter out) {
        if (t == null) {
            return;
        }
        if (ok) {
            CommandLine report = new CommandLine(new ReportCommand());
            report.setOut(out);
            report.execute(runDir.toString());
        }
        t.finish(
                ok,
                List.of(runDir.resolve("run.json"), runDir.resolve("metrics.jsonl"), runDir.resolve("report.html")));
    }
}

package org.pettingllms.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.core.workflow.DesignReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code report}: one self-contained HTML page for a run (plots embedded as PNG, so it works offline): success,
 * per-role rewards and their parts, turns, loss and KL, throughput, the resolved config and the latest
 * validation transcripts.
 */
@Command(name = "report", mixinStandardHelpOptions = true, description = "Write report.html for a run directory.")
final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "RUN_DIR", description = "a run directory (runs/<name>)")
    Path runDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path metricsFile = runDir.resolve("metrics.jsonl");
        if (!Files.exists(metricsFile)) {
            throw new IllegalArgumentException(runDir + " is not a run directory: no metrics.jsonl");
        }
        List<StepReport> rows = MetricsLog.read(metricsFile);
        StringBuilder html = new StringBuilder();
        html.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>pettingllms report: ")
                .append(esc(runDir.getFileName().toString()))
                .append("</title><style>body{font-family:sans-serif;"
                        + "max-width:1100px;margin:auto}img{max-width:100%}pre{background:#f4f4f4;padding:8px;"
                        + "overflow-x:auto;font-size:12px}</style></head><body>");
        html.append("<h1>Run ").append(esc(runDir.getFileName().toString())).append("</h1>");
        html.append("<p>").append(rows.size()).append(" steps</p>");
        chart(
                html,
                rows,
                "Success: training rollout (kept path, best of K) and greedy validation",
                List.of(Metric.SUCCESS, Metric.VAL + Metric.SUCCESS));
        chart(
                html,
                rows,
                "One sample solved: share of each role's sampled answers that solved the problem",
                keys(rows, "sampled/", "/solved"));
        chart(html, rows, "Reward per role (chosen path, per episode)", keys(rows, "reward/", "/mean"));
        chart(html, rows, "Reward parts", keys(rows, "reward/", "/local", "/team"));
        chart(html, rows, "Turns per episode", List.of(Metric.TURNS, Metric.VAL + Metric.TURNS));
        chart(html, rows, "Loss", keys(rows, "train/loss/"));
        chart(html, rows, "KL to the reference", keys(rows, "train/kl/"));
        chart(
                html,
                rows,
                "Groups with equal rewards (no signal) and samples with a non-zero advantage",
                List.of(Metric.GROUPS_CONSTANT, Metric.ADV_NONZERO));
        chart(
                html,
                rows,
                "Policy shift |logp - logp_old| within a step, and sampler-learner gap",
                Stream.concat(keys(rows, "train/policy_shift/").stream(), keys(rows, "train/sampler_gap/").stream())
                        .toList());
        designCharts(html, rows);
        chart(html, rows, "Time per step (s)", List.of(Metric.ROLLOUT_S, Metric.UPDATE_S, Metric.VALIDATE_S));
        chart(html, rows, "Completion tokens per second", List.of(Metric.TOKENS_PER_S));
        chart(
                html,
                rows,
                "Asynchronous training: seconds each side waited (the trainer for rollouts, the rollouts for weights, "
                        + "optimizer steps held for rollouts)",
                List.of(Metric.ASYNC_WAIT_ROLLOUT, Metric.ASYNC_WAIT_WEIGHTS, Metric.ASYNC_WAIT_HOLD));
        chart(
                html,
                rows,
                "Asynchronous training: staleness (steps), tokens dropped by the correction, mean token weight, and how"
                        + " far the policy moved since sampling (mean |log pi_prox - log pi_behav|)",
                List.of(Metric.ASYNC_STALENESS, Metric.ASYNC_DROPPED, Metric.ASYNC_WEIGHT, Metric.ASYNC_LAG));
        Path runJson = runDir.resolve("run.json");
        if (Files.exists(runJson)) {
            html.append("<h2>Config</h2><pre>")
                    .append(esc(Files.readString(runJson)))
                    .append("</pre>");
        }
        transcripts(html, runDir.resolve("transcripts.jsonl"));
        html.append("</body></html>");
        Path out = runDir.resolve("report.html");
        AtomicFiles.writeString(out, html.toString());
        spec.commandLine().getOut().println("wrote " + out);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /**
     * A designed system's charts: success by problem kind (training executions and validation), and per kind the
     * share of each design shape among the step's valid designs (what the designer learns to write for each kind).
     */
    private static void designCharts(StringBuilder html, List<StepReport> rows) throws Exception {
        List<StepReport> derived = new ArrayList<>();
        Set<String> kinds = new java.util.TreeSet<>();
        for (StepReport r : rows) {
            Map<String, Double> v = new java.util.LinkedHashMap<>();
            for (String prefix : List.of("", Metric.VAL)) {
                DesignReport.successByKind(r.values(), prefix)
                        .forEach((kind, rate) -> v.put(prefix + "success/" + kind, rate));
                DesignReport.shapesByKind(r.values(), prefix).forEach((kind, shares) -> {
                    kinds.add(kind);
                    shares.forEach((shape, share) -> v.put(prefix + "designs/" + kind + "/" + shape, share));
                });
            }
            derived.add(new StepReport(r.step(), v));
        }
        chart(
                html,
                derived,
                "Success by problem kind (training executions; val/: greedy validation)",
                keys(derived, "success/").isEmpty()
                        ? List.of()
                        : Stream.concat(
                                        keys(derived, "success/").stream(),
                                        keys(derived, Metric.VAL + "success/").stream())
                                .toList());
        for (String kind : kinds) {
            chart(
                    html,
                    derived,
                    "Design shapes for " + kind + " problems (share of the step's valid designs)",
                    keys(derived, "designs/" + kind + "/"));
            chart(
                    html,
                    derived,
                    "Design shapes for " + kind + " problems in greedy validation",
                    keys(derived, Metric.VAL + "designs/" + kind + "/"));
        }
    }

    /** Keys present in the rows that start with {@code prefix} and end with one of {@code suffixes}. */
    private static List<String> keys(List<StepReport> rows, String prefix, String... suffixes) {
        Set<String> out = new LinkedHashSet<>();
        for (StepReport r : rows) {
            for (String k : r.values().keySet()) {
                if (k.startsWith(prefix)
                        && (suffixes.length == 0 || endsWithAny(k, suffixes))
                        && !k.startsWith(prefix + "team/")) {
                    out.add(k);
                }
            }
        }
        return new ArrayList<>(out);
    }

    private static boolean endsWithAny(String k, String[] suffixes) {
        for (String s : suffixes) {
            if (k.endsWith(s)) {
                return true;
            }
        }
        return false;
    }

    private static void chart(StringBuilder html, List<StepReport> rows, String title, List<String> series)
            throws Exception {
        XYChart chart = new XYChartBuilder()
                .width(900)
                .height(320)
                .title(title)
                .xAxisTitle("step")
                .build();
        chart.getStyler().setMarkerSize(4);
        int drawn = 0;
        for (String key : series) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (StepReport r : rows) {
                if (r.has(key)) {
                    xs.add(r.step() + 1.0);
                    ys.add(r.get(key));
                }
            }
            if (!xs.isEmpty()) {
                chart.addSeries(key, xs, ys).setMarker(SeriesMarkers.CIRCLE);
                drawn++;
            }
        }
        if (drawn == 0) {
            return;
        }
        byte[] png = BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG);
        html.append("<h2>")
                .append(esc(title))
                .append("</h2><img alt=\"")
                .append(esc(title))
                .append("\" src=\"data:image/png;base64,")
                .append(Base64.getEncoder().encodeToString(png))
                .append("\">");
    }

    private static void transcripts(StringBuilder html, Path file) throws Exception {
        if (!Files.exists(file)) {
            return;
        }
        List<String> lines = Files.readAllLines(file);
        ObjectMapper json = new ObjectMapper();
        html.append("<h2>Latest validation transcripts</h2>");
        int lastStep = -1;
        List<JsonNode> latest = new ArrayList<>();
        for (String l : lines) {
            JsonNode n = json.readTree(l);
            if (n.path("step").asInt() > lastStep) {
                lastStep = n.path("step").asInt();
                latest.clear();
            }
            latest.add(n);
        }
        for (JsonNode e : latest) {
            html.append("<h3>")
                    .append(esc(e.path("problem").asText()))
                    .append(" (step ")
                    .append(lastStep + 1)
                    .append(e.path("success").asBoolean() ? ", success" : ", no success")
                    .append(")</h3>");
            for (JsonNode s : e.path("path")) {
                html.append("<p><b>turn ")
                        .append(s.path("turn").asInt() + 1)
                        .append(", ")
                        .append(esc(s.path("role").asText()))
                        .append("</b></p>");
                for (JsonNode image : s.path("images")) {
                    String url = image.asText();
                    if (url.startsWith("data:image/png;base64,") || url.startsWith("data:image/jpeg;base64,")) {
                        html.append("<img alt=\"what the role saw\" style=\"image-rendering: pixelated\" src=\"")
                                .append(esc(url))
                                .append("\">");
                    }
                }
                html.append("<pre>")
                        .append(esc(s.path("prompt").asText()))
                        .append("</pre><p>answer: <code>")
                        .append(esc(s.path("answer").asText()))
                        .append("</code> &rarr; ")
                        .append(esc(s.path("summary").asText()))
                        .append(String.format(" (reward %.3f)", s.path("reward").asDouble()))
                        .append("</p>");
            }
        }
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

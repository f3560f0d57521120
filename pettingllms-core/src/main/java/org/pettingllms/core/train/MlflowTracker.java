package org.pettingllms.core.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run tracked on an MLflow server through its REST API (what {@code mlflow.log_params}, {@code log_metrics} and
 * {@code log_artifact} call): the experiment found by name or created ({@code experiments/get-by-name},
 * {@code experiments/create}), a run ({@code runs/create}), the resolved config as params and each step's numbers as
 * metrics at that step ({@code runs/log-batch}, at most {@link #BATCH} of each a call, as the API allows), files as
 * artifacts through the tracking server's artifact proxy ({@code PUT /api/2.0/mlflow-artifacts/artifacts/...}, the
 * default of {@code mlflow server} since 2.0), and the run's end ({@code runs/update}: FINISHED or FAILED).
 *
 * <p>Keys are made what MLflow accepts (letters, digits, {@code _ - . / space}; others become {@code _}); params are
 * cut to {@link #MAX_PARAM} characters. A server that cannot be reached at the start is one error naming it; once the
 * run trains, a failed call is retried, then logged and skipped, so a tracking server's trouble never stops a run.
 */
public final class MlflowTracker {
    private static final Logger LOG = LoggerFactory.getLogger(MlflowTracker.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int BATCH = 1000;
    static final int MAX_PARAM = 6000;
    private static final int ATTEMPTS = 3;

    private final URI base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String runId;
    private final String experimentId;

    private MlflowTracker(URI base, String experimentId, String runId) {
        this.base = base;
        this.experimentId = experimentId;
        this.runId = runId;
    }

    /**
     * A new run in experiment {@code experiment} (created when missing) on the server at {@code uri}, with
     * {@code params} logged.
     */
    public static MlflowTracker start(
            String uri, String experiment, String runName, Map<String, String> params, Map<String, String> tags) {
        URI base = URI.create(uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri);
        if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException(
                    "MLFLOW_TRACKING_URI: expected an http(s) URL of a tracking server, got '" + uri + "'");
        }
        MlflowTracker t = new MlflowTracker(base, null, null);
        String expId;
        JsonNode found = t.call(
                "GET",
                "experiments/get-by-name?experiment_name=" + URLEncoder.encode(experiment, StandardCharsets.UTF_8),
                null,
                true);
        if (found != null) {
            expId = found.path("experiment").path("experiment_id").asText();
        } else {
            expId = t.call("POST", "experiments/create", JSON.createObjectNode().put("name", experiment), false)
                    .path("experiment_id")
                    .asText();
        }
        ObjectNode create = JSON.createObjectNode()
                .put("experiment_id", expId)
                .put("run_name", runName)
                .put("start_time", System.currentTimeMillis());
        ArrayNode tagList = create.putArray("tags");
        tags.forEach((k, v) -> tagList.addObject().put("key", key(k)).put("value", v));
        tagList.addObject().put("key", "mlflow.runName").put("value", runName);
        String runId = t.call("POST", "runs/create", create, false)
                .path("run")
                .path("info")
                .path("run_id")
                .asText();
        if (runId.isEmpty()) {
            throw new IllegalStateException("MLflow server " + base + " created no run (no run.info.run_id)");
        }
        MlflowTracker tracker = new MlflowTracker(base, expId, runId);
        List<Map.Entry<String, String>> ps = new ArrayList<>(params.entrySet());
        for (int i = 0; i < ps.size(); i += 100) { // log-batch takes at most 100 params
            ObjectNode batch = JSON.createObjectNode().put("run_id", runId);
            ArrayNode arr = batch.putArray("params");
            for (Map.Entry<String, String> e : ps.subList(i, Math.min(ps.size(), i + 100))) {
                String v = e.getValue();
                arr.addObject()
                        .put("key", key(e.getKey()))
                        .put("value", v.length() > MAX_PARAM ? v.substring(0, MAX_PARAM) : v);
            }
            tracker.call("POST", "runs/log-batch", batch, false);
        }
        return tracker;
    }

    public String runId() {
        return runId;
    }

    /** One step's numbers as metrics at its step (non-finite values are not sent: MLflow refuses NaN in JSON). */
    public void step(StepReport report) {
        long now = System.currentTimeMillis();
        List<ObjectNode> metrics = new ArrayList<>();
        report.values().forEach((k, v) -> {
            if (Double.isFinite(v)) {
                metrics.add(JSON.createObjectNode()
                        .put("key", key(k))
                        .put("value", v)
                        .put("timestamp", now)
                        .put("step", report.step()));
            }
        });
        for (int i = 0; i < metrics.size(); i += BATCH) {
            ObjectNode batch = JSON.createObjectNode().put("run_id", runId);
            batch.putArray("metrics").addAll(metrics.subList(i, Math.min(metrics.size(), i + BATCH)));
            quietly("POST", "runs/log-batch", batch);
        }
    }

    /** Uploads {@code files} (those that exist) as the run's artifacts, then ends the run. */
    public void finish(boolean ok, List<Path> files) {
        for (Path f : files) {
            if (Files.isRegularFile(f)) {
                upload(f);
            }
        }
        quietly(
                "POST",
                "runs/update",
                JSON.createObjectNode()
                        .put("run_id", runId)
                        .put("status", ok ? "FINISHED" : "FAILED")
                        .put("end_time", System.currentTimeMillis()));
    }

    /** MLflow's key characters: letters, digits, underscore, dash, period, slash, space. */
    static String key(String k) {
        return k.replaceAll("[^A-Za-z0-9_\\-./ ]", "_");
    }

    private void upload(Path file) {
        URI uri = base.resolve("/api/2.0/mlflow-artifacts/artifacts/" + experimentId + "/" + runId + "/artifacts/"
                + URLEncoder.encode(file.getFileName().toString(), StandardCharsets.UTF_8));
        try {
            HttpRequest req = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(120))
                    .PUT(HttpRequest.BodyPublishers.ofFile(file))
                    .build();
            HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                LOG.warn("MLflow: artifact {} not stored ({}: {})", file.getFileName(), r.statusCode(), r.body());
            }
        } catch (IOException e) {
            LOG.warn("MLflow: artifact {} not stored ({})", file.getFileName(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A call after the start: retried, then logged and dropped. */
    private void quietly(String method, String path, ObjectNode body) {
        try {
            call(method, path, body, false);
        } catch (RuntimeException e) {
            LOG.warn("MLflow: {} failed, skipped: {}", path, e.getMessage());
        }
    }

    /**
     * One REST call, retried on connection failures and 5xx; {@code missingIsNull}: a 404 answers null (an
     * experiment not found). Any other failure: one exception naming the server and what it answered.
     */
    private JsonNode call(String method, String path, ObjectNode body, boolean missingIsNull) {
        URI uri = base.resolve("/api/2.0/mlflow/" + path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30));
        if (body == null) {
            b.GET();
        } else {
            b.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        String last = "";
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
                }
                if (r.statusCode() == 404 && missingIsNull) {
                    return null;
                }
                last = "HTTP " + r.statusCode() + ": " + r.body().strip();
                if (r.statusCode() < 500) {
                    break;
                }
            } catch (IOException e) {
                last = e.toString();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            try {
                Thread.sleep(250L << attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException("MLflow server " + base + ": " + path + " failed: " + last);
    }
}

package org.pettingllms.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A local server that answers as MLflow's tracking REST API does (2.x: {@code /api/2.0/mlflow/...} and the artifact
 * proxy {@code /api/2.0/mlflow-artifacts/artifacts/...}), for testing a client without MLflow: experiments by name
 * (404 {@code RESOURCE_DOES_NOT_EXIST} when missing), runs, {@code log-batch} with MLflow's limits (1000 metrics and
 * 100 params a call; keys of letters, digits, {@code _ - . / space}; a param logged twice with another value is a
 * 400, as MLflow refuses to change a param), run updates and artifact uploads. It keeps what it was sent.
 */
public final class FakeMlflow implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_\\-./ ]+");

    /** One metric as logged. */
    public record Point(String key, double value, long step) {}

    private final HttpServer server;
    private final Map<String, String> experiments = new ConcurrentHashMap<>();
    public final Map<String, String> params = new LinkedHashMap<>();
    public final Map<String, String> tags = new LinkedHashMap<>();
    public final List<Point> metrics = new ArrayList<>();
    public final Map<String, byte[]> artifacts = new LinkedHashMap<>();
    public final List<String> calls = new ArrayList<>();
    public volatile String runStatus;
    public volatile String runName;

    public FakeMlflow() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private synchronized void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        calls.add(ex.getRequestMethod() + " " + path);
        byte[] body = ex.getRequestBody().readAllBytes();
        try {
            if (path.startsWith("/api/2.0/mlflow-artifacts/artifacts/")
                    && ex.getRequestMethod().equals("PUT")) {
                artifacts.put(
                        URLDecoder.decode(path.substring(path.lastIndexOf('/') + 1), StandardCharsets.UTF_8), body);
                reply(ex, 200, JSON.createObjectNode());
                return;
            }
            switch (path) {
                case "/api/2.0/mlflow/experiments/get-by-name" -> {
                    String name = URLDecoder.decode(
                            ex.getRequestURI().getRawQuery().replaceFirst("^experiment_name=", ""),
                            StandardCharsets.UTF_8);
                    String id = experiments.get(name);
                    if (id == null) {
                        error(ex, 404, "RESOURCE_DOES_NOT_EXIST", "Could not find experiment with name '" + name + "'");
                    } else {
                        ObjectNode r = JSON.createObjectNode();
                        r.putObject("experiment").put("experiment_id", id).put("name", name);
                        reply(ex, 200, r);
                    }
                }
                case "/api/2.0/mlflow/experiments/create" -> {
                    String name = JSON.readTree(body).path("name").asText();
                    String id = Integer.toString(experiments.size() + 1);
                    experiments.put(name, id);
                    reply(ex, 200, JSON.createObjectNode().put("experiment_id", id));
                }
                case "/api/2.0/mlflow/runs/create" -> {
                    JsonNode r = JSON.readTree(body);
                    runName = r.path("run_name").asText();
                    for (JsonNode t : r.path("tags")) {
                        tags.put(t.path("key").asText(), t.path("value").asText());
                    }
                    ObjectNode out = JSON.createObjectNode();
                    out.putObject("run")
                            .putObject("info")
                            .put("run_id", "run0")
                            .put("experiment_id", r.path("experiment_id").asText())
                            .put(
                                    "artifact_uri",
                                    "mlflow-artifacts:/"
                                            + r.path("experiment_id").asText() + "/run0/artifacts")
                            .put("status", "RUNNING");
                    reply(ex, 200, out);
                }
                case "/api/2.0/mlflow/runs/log-batch" -> logBatch(ex, JSON.readTree(body));
                case "/api/2.0/mlflow/runs/update" -> {
                    runStatus = JSON.readTree(body).path("status").asText();
                    ObjectNode out = JSON.createObjectNode();
                    out.putObject("run_info").put("run_id", "run0").put("status", runStatus);
                    reply(ex, 200, out);
                }
                default -> error(ex, 404, "ENDPOINT_NOT_FOUND", "no endpoint " + path);
            }
        } catch (RuntimeException e) {
            error(ex, 500, "INTERNAL_ERROR", e.toString());
        }
    }

    private void logBatch(HttpExchange ex, JsonNode b) throws IOException {
        if (b.path("metrics").size() > 1000 || b.path("params").size() > 100) {
            error(
                    ex,
                    400,
                    "INVALID_PARAMETER_VALUE",
                    "A batch logging request can contain at most 1000 metrics" + " and 100 params");
            return;
        }
        for (JsonNode p : b.path("params")) {
            String k = p.path("key").asText();
            String v = p.path("value").asText();
            if (!KEY.matcher(k).matches() || v.length() > 6000) {
                error(ex, 400, "INVALID_PARAMETER_VALUE", "Invalid param '" + k + "'");
                return;
            }
            if (params.containsKey(k) && !params.get(k).equals(v)) {
                error(ex, 400, "INVALID_PARAMETER_VALUE", "Changing param values is not allowed: " + k);
                return;
            }
            params.put(k, v);
        }
        for (JsonNode m : b.path("metrics")) {
            String k = m.path("key").asText();
            if (!KEY.matcher(k).matches() || !m.path("value").isNumber() || !m.has("timestamp")) {
                error(ex, 400, "INVALID_PARAMETER_VALUE", "Invalid metric '" + k + "'");
                return;
            }
            metrics.add(new Point(k, m.path("value").asDouble(), m.path("step").asLong()));
        }
        reply(ex, 200, JSON.createObjectNode());
    }

    private static void error(HttpExchange ex, int status, String code, String message) throws IOException {
        reply(ex, status, JSON.createObjectNode().put("error_code", code).put("message", message));
    }

    private static void reply(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] b = body.toString().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}

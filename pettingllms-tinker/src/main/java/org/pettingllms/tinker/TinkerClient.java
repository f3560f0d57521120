package org.pettingllms.tinker;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tinker HTTP API as JSON (what SDK versions up to 0.24 send, and what SkyRL's server and this project's
 * {@code serve --tinker} accept): a session kept alive by heartbeats, every training and sampling operation a
 * future ({@code POST /api/v1/<op>} answers a {@code request_id}, {@code retrieve_future} answers the result, a
 * {@code try_again}, or {@code {"error", "category"}}), and each training client's requests numbered by
 * {@code seq_id} so that a retried request is recognised, not run twice.
 *
 * <p>Transient failures are retried with exponential backoff until the operation's deadline: connection errors,
 * 408, 409 (a retried request the service is still placing), 429 and 5xx. Others end the operation with a
 * {@link TinkerException} naming it and what the service said: 401/403 (the key), 404 (an unknown model or
 * request), 400/422 (invalid input), a failed run.
 */
public final class TinkerClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TinkerClient.class);
    static final ObjectMapper JSON = new ObjectMapper();
    /** Server errors in a row after which a request fails (about 45 s of backoff). */
    static final int SERVER_ERRORS = 8;

    /**
     * @param baseUrl  the service's base URL; paths are {@code api/v1/<op>} under it
     * @param apiKey   sent as {@code X-API-Key}
     * @param deadline how long one operation (submission, queueing and running) may take before it fails
     */
    public record Settings(URI baseUrl, String apiKey, Duration deadline) {
        public Settings {
            String s = baseUrl.toString();
            baseUrl = URI.create(s.endsWith("/") ? s : s + "/");
            if (apiKey == null || apiKey.isBlank()) {
                throw new IllegalArgumentException("a Tinker API key is needed (any value for a local server)");
            }
        }
    }

    private final Settings settings;
    private final HttpClient http;
    private final Map<String, AtomicInteger> seqs = new ConcurrentHashMap<>();
    private final AtomicInteger modelSeq = new AtomicInteger();
    private final ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tinker-heartbeat");
        t.setDaemon(true);
        return t;
    });
    private volatile String session;

    public TinkerClient(Settings settings) {
        this.settings = settings;
        this.http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /** The session every training client belongs to, created on first use and kept alive every 10 s. */
    public synchronized String session() {
        if (session == null) {
            ObjectNode body = JSON.createObjectNode();
            body.putArray("tags").add("pettingllms");
            body.putObject("user_metadata");
            body.put("sdk_version", "0.24.1").put("type", "create_session");
            session =
                    post("create_session", body, deadline()).path("session_id").asText(null);
            if (session == null) {
                throw new TinkerException("create_session: the answer has no session_id", 200);
            }
            heartbeat.scheduleAtFixedRate(this::beat, 10, 10, TimeUnit.SECONDS);
        }
        return session;
    }

    private void beat() {
        try {
            ObjectNode body = JSON.createObjectNode().put("session_id", session).put("type", "session_heartbeat");
            send("session_heartbeat", body);
        } catch (IOException | RuntimeException e) {
            LOG.debug("session heartbeat failed: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next {@code model_seq_id} of this session (one per training client created). */
    int nextModelSeq() {
        return modelSeq.getAndIncrement();
    }

    /** The next {@code seq_id} of a training client's requests: 1 for its first. */
    int nextSeq(String modelId) {
        return seqs.computeIfAbsent(modelId, m -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * Asks the service to free a training client, at most a few seconds and never failing: its adapter's name is free
     * again for the next run on the service (one that never asks holds it until its session expires).
     */
    void unload(String modelId) {
        String s;
        synchronized (this) {
            s = session;
        }
        if (s == null) {
            return;
        }
        ObjectNode body = JSON.createObjectNode()
                .put("model_id", modelId)
                .put("session_id", s)
                .put("type", "unload_model");
        try {
            post("unload_model", body, System.nanoTime() + Duration.ofSeconds(5).toNanos());
        } catch (RuntimeException e) {
            LOG.debug("unload_model {}: {}", modelId, e.toString());
        }
    }

    /** An operation that answers at once (no future). */
    JsonNode call(String op, ObjectNode body) {
        return post(op, body, deadline());
    }

    /** An operation that answers a future: submitted, then polled until its result, its failure or the deadline. */
    JsonNode run(String op, ObjectNode body) {
        long deadline = deadline();
        JsonNode submitted = post(op, body, deadline);
        String id = submitted.path("request_id").asText(null);
        if (id == null) {
            throw new TinkerException(op + ": the answer has no request_id: " + brief(submitted.toString()), 200);
        }
        ObjectNode poll = JSON.createObjectNode().put("request_id", id).put("allow_metadata_only", false);
        for (int attempt = 0; ; attempt++) {
            long asked = System.nanoTime();
            JsonNode r = post("retrieve_future", poll, deadline, op);
            if (r.has("error")) {
                throw new TinkerException(
                        op + " failed (" + r.path("category").asText("unknown") + "): "
                                + r.get("error").asText(),
                        200);
            }
            if (!r.path("type").asText().equals("try_again")) {
                return r;
            }
            if (System.nanoTime() > deadline) {
                throw new TinkerException(
                        op + ": no result within " + settings.deadline().toSeconds() + " s", 0);
            }
            // the service holds a poll until it has news; one that answers at once is not hammered
            if (System.nanoTime() - asked < 1_000_000_000L) {
                sleep(Math.min(1000, 50L << Math.min(attempt, 5)));
            }
        }
    }

    private long deadline() {
        return System.nanoTime() + settings.deadline().toNanos();
    }

    private JsonNode post(String op, ObjectNode body, long deadline) {
        return post(op, body, deadline, op);
    }

    /**
     * POSTs {@code body} to {@code path}, retrying transient failures until {@code deadline}; a server error (5xx)
     * at most {@link #SERVER_ERRORS} times in a row, since one that repeats is likely to repeat until the deadline.
     */
    private JsonNode post(String path, ObjectNode body, long deadline, String op) {
        int serverErrors = 0;
        IOException lastIo = null;
        for (int attempt = 0; ; attempt++) {
            String why;
            try {
                HttpResponse<String> r = send(path, body);
                int status = r.statusCode();
                if (status == 200) {
                    return parse(op, r.body());
                }
                why = status + " " + brief(detail(r.body()));
                if (!(status == 408 || status == 409 || status == 429 || status >= 500)
                        || (status >= 500 && ++serverErrors >= SERVER_ERRORS)) {
                    throw refused(op, status, r.body());
                }
            } catch (IOException e) {
                why = e.toString();
                lastIo = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TinkerException(op + ": interrupted", 0);
            }
            long wait = Math.min(10_000, 500L << Math.min(attempt, 5));
            if (System.nanoTime() + wait * 1_000_000L > deadline) {
                throw new TinkerException(
                        op + ": gave up after " + (attempt + 1) + " attempts within "
                                + settings.deadline().toSeconds() + " s; last: " + why,
                        0,
                        lastIo);
            }
            LOG.debug("{}: {}; retrying in {} ms", op, why, wait);
            sleep(wait);
        }
    }

    private HttpResponse<String> send(String path, ObjectNode body) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(settings.baseUrl().resolve("api/v1/" + path))
                .timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("X-API-Key", settings.apiKey())
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build();
        return http.send(req, HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode parse(String op, String body) {
        try {
            return JSON.readTree(body);
        } catch (JacksonException e) {
            throw new TinkerException(op + ": the answer is not JSON: " + brief(body), 200);
        }
    }

    private TinkerException refused(String op, int status, String body) {
        String detail = brief(detail(body));
        return new TinkerException(
                switch (status) {
                    case 401, 403 -> op + ": the service refused the API key (" + status + "): " + detail;
                    case 404 -> op + ": not found at " + settings.baseUrl() + " (" + status + "): " + detail;
                    default -> op + " refused (" + status + "): " + detail;
                },
                status);
    }

    /** The message of an error body: FastAPI's {@code detail}, Tinker's {@code error}, OpenAI's nested form. */
    static String detail(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            for (JsonNode m : new JsonNode[] {
                n.path("detail"), n.path("error").path("message"), n.path("error"), n.path("message")
            }) {
                if (m.isTextual()) {
                    return m.asText();
                }
                if (m.isContainerNode() && !m.isEmpty() && m != n.path("error")) {
                    return m.toString();
                }
            }
        } catch (JacksonException | RuntimeException e) {
            // not JSON: the text as it is
        }
        return body;
    }

    private static String brief(String s) {
        return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TinkerException("interrupted", 0);
        }
    }

    @Override
    public void close() {
        heartbeat.shutdownNow();
        http.close();
    }
}

package org.pettingllms.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An HTTP server on loopback for testing clients of inference servers, in the manner of OkHttp's MockWebServer:
 * answers are scripted (responses queued for a path, then the path's answerer), every request is recorded in
 * arrival order, and faults are injected as responses (a status with an error body, a delay, a request held until
 * the test releases it, a connection dropped without an answer). Unscripted paths get a JSON 404.
 *
 * <pre>{@code
 * try (FakeInferenceServer server = FakeInferenceServer.start()) {
 *     server.enqueue("/v1/completions", Response.error(503, "overloaded"));
 *     server.answer("/v1/completions", request -> Response.json(200, "{\"choices\": []}"));
 *     ... the client under test talks to server.uri() ...
 *     RecordedRequest first = server.takeRequest();
 *     assertThat(first.json().path("n").asInt()).isEqualTo(4);
 * }
 * }</pre>
 */
public final class FakeInferenceServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A request as it arrived: method, path (without the query), query, headers and the body as text. */
    public record RecordedRequest(
            String method, String path, String query, Map<String, List<String>> headers, String body) {
        /** The body parsed as JSON. */
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("request body to " + path + " is not JSON: " + body, e);
            }
        }

        /** The first value of a header (names are case-insensitive), or null. */
        public String header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return e.getValue().get(0);
                }
            }
            return null;
        }
    }

    /**
     * One scripted answer, or a fault.
     *
     * @param status      HTTP status (ignored when the connection is dropped)
     * @param body        response body; empty for none
     * @param contentType the body's content type
     * @param delay       waited before answering
     * @param hold        when not null, the answer waits until it is counted down (at most a minute)
     * @param drop        close the connection without an answer
     */
    public record Response(
            int status, String body, String contentType, Duration delay, CountDownLatch hold, boolean drop) {
        /** A JSON body with a status. */
        public static Response json(int status, String body) {
            return new Response(status, body, "application/json", Duration.ZERO, null, false);
        }

        /** A JSON body with status 200. */
        public static Response ok(JsonNode body) {
            return json(200, body.toString());
        }

        /** A status without a body. */
        public static Response status(int status) {
            return new Response(status, "", "application/json", Duration.ZERO, null, false);
        }

        /** An error as vLLM's OpenAI-compatible server sends it: {@code {"object":"error","message":...,"code":...}}. */
        public static Response error(int status, String message) {
            ObjectNode body = JSON.createObjectNode()
                    .put("object", "error")
                    .put("message", message)
                    .put("type", status >= 500 ? "InternalServerError" : "BadRequestError")
                    .put("code", status);
            return json(status, body.toString());
        }

        /** The connection closed without an answer (a crashed or restarted server). */
        public static Response dropConnection() {
            return new Response(0, "", "application/json", Duration.ZERO, null, true);
        }

        /** This answer after a delay (a slow server; a client's timeout). */
        public Response delayed(Duration by) {
            return new Response(status, body, contentType, by, hold, drop);
        }

        /** This answer once the latch is counted down (a busy server, for tests of load balancing). */
        public Response heldUntil(CountDownLatch latch) {
            return new Response(status, body, contentType, delay, latch, drop);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-inference-server");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Deque<Response>> queued = new ConcurrentHashMap<>();
    private final Map<String, Function<RecordedRequest, Response>> answerers = new ConcurrentHashMap<>();
    private final BlockingQueue<RecordedRequest> unread = new LinkedBlockingQueue<>();
    private final List<RecordedRequest> all = new ArrayList<>();

    private FakeInferenceServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
    }

    /** A server listening on a free loopback port. */
    public static FakeInferenceServer start() {
        try {
            FakeInferenceServer s = new FakeInferenceServer();
            s.server.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a fake inference server on loopback", e);
        }
    }

    /** {@code http://127.0.0.1:<port>} */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The next request to {@code path} gets {@code response} (queued answers come first, in order). */
    public FakeInferenceServer enqueue(String path, Response response) {
        queued.computeIfAbsent(path, p -> new ArrayDeque<>());
        synchronized (queued.get(path)) {
            queued.get(path).addLast(response);
        }
        return this;
    }

    /** Requests to {@code path} with nothing queued are answered by {@code answerer}. */
    public FakeInferenceServer answer(String path, Function<RecordedRequest, Response> answerer) {
        answerers.put(path, answerer);
        return this;
    }

    /** The oldest request not yet taken, waiting up to ten seconds for one. */
    public RecordedRequest takeRequest() {
        try {
            RecordedRequest r = unread.poll(10, TimeUnit.SECONDS);
            if (r == null) {
                throw new AssertionError("no request reached the fake server within 10 s");
            }
            return r;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for a request", e);
        }
    }

    /** Every request so far, in arrival order. */
    public List<RecordedRequest> requests() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }

    /** How many requests reached {@code path}. */
    public int requestCount(String path) {
        return (int) requests().stream().filter(r -> r.path().equals(path)).count();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = ex.getRequestURI().getPath();
            RecordedRequest request = new RecordedRequest(
                    ex.getRequestMethod(),
                    path,
                    ex.getRequestURI().getQuery(),
                    Map.copyOf(ex.getRequestHeaders()),
                    body);
            synchronized (all) {
                all.add(request);
            }
            unread.add(request);
            Response response = next(request);
            if (!response.delay().isZero()) {
                Thread.sleep(response.delay().toMillis());
            }
            if (response.hold() != null) {
                response.hold().await(1, TimeUnit.MINUTES);
            }
            if (response.drop()) {
                return; // closing an exchange that sent no headers closes its connection
            }
            byte[] out = response.body().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", response.contentType());
            ex.sendResponseHeaders(response.status(), out.length == 0 ? -1 : out.length);
            ex.getResponseBody().write(out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Response next(RecordedRequest request) {
        Deque<Response> q = queued.get(request.path());
        if (q != null) {
            synchronized (q) {
                if (!q.isEmpty()) {
                    return q.removeFirst();
                }
            }
        }
        Function<RecordedRequest, Response> answerer = answerers.get(request.path());
        if (answerer != null) {
            return answerer.apply(request);
        }
        return Response.error(404, "no route " + request.method() + " " + request.path() + " on the fake server");
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}

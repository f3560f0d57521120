package org.pettingllms.envs.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A client of any retrieval server speaking Search-R1's contract: {@code POST /retrieve} with
 * {@code {"queries": [...], "topk": k, "return_scores": true}}, answered with
 * {@code {"result": [[{"document": {"id", "contents"}, "score"}, ...]]}} (or, without scores, a list of documents per
 * query). The project's own {@code serve --retriever} is one; Search-R1's {@code retrieval_server.py} (BM25 or
 * dense, over Wikipedia) another.
 *
 * <p>A query is sent cleaned (control characters and lone surrogates as spaces, at most
 * {@link Bm25Index#MAX_QUERY_CHARS} characters); one with nothing left is not sent and finds nothing. A connection
 * failure, a 429 or a 5xx is retried {@link #ATTEMPTS} times with growing pauses; then, or on any other status or a
 * body that is not the contract's, one {@link RetrievalException} naming the server and what it answered.
 */
public final class RemoteRetriever implements Retriever {
    static final int ATTEMPTS = 4;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI endpoint;
    private final HttpClient http;
    private final Duration timeout;

    /** @param url the server ({@code http://host:port}, with or without {@code /retrieve}) */
    public RemoteRetriever(String url, Duration timeout) {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.endpoint = URI.create(u.endsWith("/retrieve") ? u : u + "/retrieve");
        if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
            throw new IllegalArgumentException("a retrieval server is an http(s) URL, got '" + url + "'");
        }
        this.timeout = timeout;
        this.http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    public URI endpoint() {
        return endpoint;
    }

    @Override
    public List<Hit> search(String query, int topk) {
        if (topk < 1 || topk > Bm25Index.MAX_TOPK) {
            throw new IllegalArgumentException("topk must be 1 to " + Bm25Index.MAX_TOPK + ", got " + topk);
        }
        String q = clean(query);
        if (q.isBlank()) {
            return List.of();
        }
        ObjectNode body = JSON.createObjectNode();
        body.putArray("queries").add(q);
        body.put("topk", topk).put("return_scores", true);
        JsonNode answer = post(body.toString());
        JsonNode result = answer.path("result");
        if (!result.isArray() || result.size() != 1 || !result.get(0).isArray()) {
            throw bad("no 'result' list with one list of documents for the one query");
        }
        List<Hit> out = new ArrayList<>();
        for (JsonNode item : result.get(0)) {
            JsonNode doc = item.has("document") ? item.get("document") : item;
            JsonNode contents = doc.path("contents");
            if (!contents.isTextual()) {
                throw bad("a document without text 'contents'");
            }
            String id = doc.path("id").asText("");
            Passage p = Passage.parse(id.isBlank() ? "#" + out.size() : id, contents.asText());
            out.add(new Hit(p, item.path("score").asDouble(0)));
            if (out.size() == topk) {
                break;
            }
        }
        return out;
    }

    /** The query as sent: control characters (but newlines and tabs) and lone surrogates made spaces, then cut. */
    static String clean(String query) {
        if (query == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(Math.min(query.length(), Bm25Index.MAX_QUERY_CHARS));
        for (int i = 0; i < query.length() && sb.length() < Bm25Index.MAX_QUERY_CHARS; i++) {
            char c = query.charAt(i);
            if (Character.isHighSurrogate(c)
                    && i + 1 < query.length()
                    && Character.isLowSurrogate(query.charAt(i + 1))) {
                if (sb.length() + 2 > Bm25Index.MAX_QUERY_CHARS) {
                    break;
                }
                sb.append(c).append(query.charAt(++i));
            } else if (Character.isSurrogate(c) || (Character.isISOControl(c) && c != '\n' && c != '\t')) {
                sb.append(' ');
            } else {
                sb.append(c);
            }
        }
        return sb.toString().strip();
    }

    private JsonNode post(String body) {
        HttpRequest req = HttpRequest.newBuilder(endpoint)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        String last = "";
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    try {
                        return JSON.readTree(r.body());
                    } catch (IOException e) {
                        throw bad("a body that is not JSON");
                    }
                }
                last = "HTTP " + r.statusCode() + ": " + snippet(r.body());
                if (r.statusCode() != 429 && r.statusCode() < 500) {
                    break; // the request is wrong; sending it again will not help
                }
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RetrievalException("retrieval server " + endpoint + ": interrupted");
            }
            if (attempt < ATTEMPTS) {
                pause(200L << attempt);
            }
        }
        throw new RetrievalException("retrieval server " + endpoint + " did not answer: " + last);
    }

    private RetrievalException bad(String what) {
        return new RetrievalException("retrieval server " + endpoint + " answered " + what
                + " (expected {\"result\": [[{\"document\": {\"id\", \"contents\"}, \"score\"}]]})");
    }

    private static String snippet(String s) {
        String one = s == null ? "" : s.strip().replace('\n', ' ');
        return one.length() > 200 ? one.substring(0, 200) + "..." : one;
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

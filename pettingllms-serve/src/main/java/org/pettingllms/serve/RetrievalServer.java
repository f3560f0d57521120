package org.pettingllms.serve;

import static org.pettingllms.http.Http.JSON;
import static org.pettingllms.http.Http.body;
import static org.pettingllms.http.Http.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.envs.search.Bm25Index;
import org.pettingllms.envs.search.Retriever;
import org.pettingllms.http.Access;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Slots;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A retriever behind Search-R1's retrieval contract ({@code serve --retriever CORPUS}), so one index serves local
 * runs and a fleet of rollout workers, and Search-R1's own trainers can use it: {@code POST /retrieve} with
 * {@code {"queries": [...], "topk": k, "return_scores": bool}} answers
 * {@code {"result": [[{"document": {"id", "contents"}, "score"}, ...], ...]}} (with {@code return_scores} false, as
 * Search-R1's server does, a list of documents per query), one list per query in order; {@code GET /health}.
 *
 * <p>Any query text is searched as words ({@link Bm25Index}); a malformed request (no {@code queries}, a query that is
 * not text, {@code topk} outside 1 to {@link Bm25Index#MAX_TOPK}, more than {@link #MAX_QUERIES} queries, an unknown
 * field) is a 400 naming the field, in the error format the project's other servers use.
 */
public final class RetrievalServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RetrievalServer.class);
    public static final int MAX_QUERIES = 1024;
    /** Search-R1's default {@code retrieval_topk}. */
    public static final int DEFAULT_TOPK = 3;

    public record Options(String host, int port, int maxConcurrent, Access access) {
        public Options {
            if (maxConcurrent < 1 || port < 0 || port > 65535) {
                throw new IllegalArgumentException("need maxConcurrent >= 1 and a port in [0, 65535]");
            }
        }
    }

    private final Retriever retriever;
    private final Options options;
    private final Javalin app;

    public RetrievalServer(Retriever retriever, Options options) {
        this.retriever = retriever;
        this.options = options;
        Slots slots = new Slots(options.maxConcurrent());
        this.app = Javalin.create(config -> {
            config.jetty.host = options.host();
            config.jetty.port = options.port();
            config.startup.showJavalinBanner = false;
            options.access().install(config, Set.of("/health"));
            config.routes.get("/health", ctx -> ctx.json(Map.of("status", "ok")));
            config.routes.post("/retrieve", slots.limited(this::retrieve));
            Http.openAiErrors(config, LOG);
        });
    }

    public RetrievalServer start() {
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    public URI uri() {
        String host = options.host().equals("0.0.0.0") ? "127.0.0.1" : options.host();
        return URI.create("http://" + host + ":" + port());
    }

    private void retrieve(Context ctx) throws Exception {
        JsonNode body = body(ctx);
        Fields.onlyKnown(body, Set.of("queries", "topk", "return_scores"), "/retrieve");
        JsonNode qs = body.get("queries");
        if (qs == null || !qs.isArray() || qs.isEmpty()) {
            throw BadRequest.field("queries", "required: a non-empty list of query strings");
        }
        if (qs.size() > MAX_QUERIES) {
            throw BadRequest.field("queries", "at most " + MAX_QUERIES + " queries a request, got " + qs.size());
        }
        List<String> queries = new ArrayList<>();
        for (int i = 0; i < qs.size(); i++) {
            if (!qs.get(i).isTextual()) {
                throw BadRequest.field(
                        "queries",
                        "item " + i + ": expected a string, got "
                                + qs.get(i).getNodeType().name().toLowerCase());
            }
            queries.add(qs.get(i).asText());
        }
        int topk = Fields.integer(body, "topk", DEFAULT_TOPK, 1, Bm25Index.MAX_TOPK);
        boolean scores = Fields.bool(body, "return_scores", false);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode result = out.putArray("result");
        for (String q : queries) {
            ArrayNode docs = result.addArray();
            for (Retriever.Hit h : retriever.search(q, topk)) {
                ObjectNode doc = JSON.createObjectNode()
                        .put("id", h.passage().id())
                        .put("contents", h.passage().contents());
                if (scores) {
                    docs.addObject().<ObjectNode>set("document", doc).put("score", h.score());
                } else {
                    docs.add(doc);
                }
            }
        }
        json(ctx, 200, out);
    }

    @Override
    public void close() {
        app.stop();
    }
}

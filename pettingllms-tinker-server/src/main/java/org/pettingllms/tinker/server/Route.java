package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;

/**
 * One route of the server, declared with the fields its body may hold: the handler only ever sees a body already
 * checked against its own route's {@link Schema}, so a route cannot be served without one (a route table that
 * looked its schema up by name answered every request of a route added without an entry with a 500). A route
 * without a schema or handler is refused when it is built, two with the same method and path when they are
 * installed, both before the server starts.
 */
record Route(Method method, String path, Schema schema, Handler handler) {
    enum Method {
        GET,
        POST
    }

    /**
     * The top-level fields a route's body may hold; any other is refused by name (as the OpenAI routes do), before
     * the handler runs. {@link #NO_BODY}: a route that never reads its body (a GET, or a POST whose answer does not
     * depend on it), so nothing in it is refused.
     */
    record Schema(boolean readsBody, Set<String> fields) {
        static final Schema NO_BODY = new Schema(false, Set.of());

        Schema {
            fields = Set.copyOf(fields);
        }

        static Schema of(String... fields) {
            return new Schema(true, Set.of(fields));
        }
    }

    /** A route's handler, given its request's body checked against the route's schema (a missing node if unread). */
    @FunctionalInterface
    interface Handler {
        void handle(Context ctx, JsonNode body) throws Exception;
    }

    Route {
        if (method == null || path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException(
                    "a route needs a method and a path that starts with '/', got " + method + " " + path);
        }
        if (schema == null) {
            throw new IllegalArgumentException("route " + method + " " + path + " has no field schema: declare the"
                    + " fields its body may hold (Route.Schema.of(...)), or Route.Schema.NO_BODY");
        }
        if (handler == null) {
            throw new IllegalArgumentException("route " + method + " " + path + " has no handler");
        }
    }

    static Route get(String path, Schema schema, Handler handler) {
        return new Route(Method.GET, path, schema, handler);
    }

    static Route post(String path, Schema schema, Handler handler) {
        return new Route(Method.POST, path, schema, handler);
    }

    /** The route's name in refusals: its path's last segment ({@code create_model}), as Tinker names requests. */
    String name() {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The request's JSON body, its fields checked against this route's schema. */
    JsonNode body(Context ctx) {
        if (!schema.readsBody()) {
            return MissingNode.getInstance();
        }
        JsonNode body = Http.body(ctx);
        Fields.onlyKnown(body, schema.fields(), name());
        return body;
    }

    /** {@code routes}, refused if two share a method and path (the later would silently replace the earlier). */
    static List<Route> distinct(List<Route> routes) {
        Set<String> seen = new HashSet<>();
        for (Route r : routes) {
            if (!seen.add(r.method() + " " + r.path())) {
                throw new IllegalArgumentException("route " + r.method() + " " + r.path() + " is declared twice");
            }
        }
        return List.copyOf(routes);
    }

    /** Serves each of {@code routes} (checked by {@link #distinct}) on {@code config}'s server. */
    static void install(JavalinConfig config, List<Route> routes) {
        for (Route r : distinct(routes)) {
            io.javalin.http.Handler h = ctx -> r.handler().handle(ctx, r.body(ctx));
            switch (r.method()) {
                case GET -> config.routes.get(r.path(), h);
                case POST -> config.routes.post(r.path(), h);
            }
        }
    }
}

package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import org.pettingllms.http.Http;

/** How the server's answers are written: JSON objects, and failures as FastAPI's {@code detail} body. */
final class Replies {
    private Replies() {}

    static ObjectNode json() {
        return Http.JSON.createObjectNode();
    }

    static void ok(Context ctx, JsonNode body) throws Exception {
        Http.json(ctx, 200, body);
    }

    /** FastAPI's error body, as SkyRL's server answers. */
    static void detail(Context ctx, int status, String message) {
        ctx.status(status)
                .contentType("application/json")
                .result(json().put("detail", message).toString());
    }
}

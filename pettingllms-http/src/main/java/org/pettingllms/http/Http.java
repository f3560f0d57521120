package org.pettingllms.http;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;

/**
 * What every server here does the same way: read a request body as one JSON object (a {@link BadRequest} naming
 * what is wrong), write JSON or a server-sent-events {@link Reply}, and write OpenAI's error body.
 */
public final class Http {
    public static final ObjectMapper JSON = new ObjectMapper();

    private Http() {}

    /** The request body as a JSON object; anything else is a 400. */
    public static JsonNode body(Context ctx) {
        try {
            JsonNode n = JSON.readTree(ctx.body());
            if (n == null || !n.isObject()) {
                throw new BadRequest(400, null, "the request body must be a JSON object");
            }
            return n;
        } catch (JacksonException e) {
            throw new BadRequest(400, null, "the request body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    public static void json(Context ctx, int status, Object body) throws Exception {
        ctx.status(status).contentType("application/json").result(JSON.writeValueAsString(body));
    }

    public static void reply(Context ctx, Reply r) throws Exception {
        if (r.events() != null) {
            ctx.status(200)
                    .contentType(EventStream.CONTENT_TYPE)
                    .header("Cache-Control", "no-cache")
                    .result(r.events());
        } else {
            json(ctx, 200, r.json());
        }
    }

    /** OpenAI's {@code usage} object. */
    public static void usage(ObjectNode usage, long promptTokens, long completionTokens) {
        usage.put("prompt_tokens", promptTokens)
                .put("completion_tokens", completionTokens)
                .put("total_tokens", promptTokens + completionTokens);
    }

    /**
     * Every failure of a server's routes as OpenAI's error body: a {@link BadRequest} with its status and field,
     * Javalin's own refusals (a body over the size limit: 413), Jetty's (through {@link JsonErrors}), an unknown
     * route (404; a handler's own 404 is JSON already and is kept), and anything else as a 500, logged to {@code log}.
     */
    public static void openAiErrors(JavalinConfig config, Logger log) {
        config.jetty.modifyServer(s -> s.setErrorHandler(new JsonErrors(Http::errorJson)));
        config.routes.exception(BadRequest.class, (e, ctx) -> error(ctx, e.status, e.getMessage(), e.param));
        config.routes.exception(
                HttpResponseException.class, (e, ctx) -> error(ctx, e.getStatus(), e.getMessage(), null));
        config.routes.error(404, "*", ctx -> {
            String type = ctx.res().getContentType();
            if (type == null || !type.startsWith("application/json")) {
                error(ctx, 404, "no route " + ctx.method() + " " + ctx.path(), null);
            }
        });
        config.routes.exception(Exception.class, (e, ctx) -> {
            log.warn("request {} failed", ctx.path(), e);
            error(ctx, 500, e.getClass().getSimpleName() + ": " + e.getMessage(), null);
        });
    }

    /** OpenAI's error body (vLLM's too): {@code {"error": {"message", "type", "param", "code"}}}. */
    public static void error(Context ctx, int status, String message, String param) {
        ctx.status(status)
                .contentType("application/json")
                .result(errorBody(status, message, param).toString());
    }

    /** {@link #error}'s body without a field, for Jetty's own refusals ({@link JsonErrors}). */
    public static String errorJson(int status, String message) {
        return errorBody(status, message, null).toString();
    }

    private static ObjectNode errorBody(int status, String message, String param) {
        ObjectNode root = JSON.createObjectNode();
        root.putObject("error")
                .put("message", message)
                .put("type", errorType(status))
                .put("param", param)
                .put("code", status);
        return root;
    }

    private static String errorType(int status) {
        return switch (status) {
            case 401 -> "AuthenticationError";
            case 403 -> "PermissionDeniedError";
            case 404 -> "NotFoundError";
            case 429 -> "TooManyRequests";
            default -> status >= 500 ? "InternalServerError" : "BadRequestError";
        };
    }
}

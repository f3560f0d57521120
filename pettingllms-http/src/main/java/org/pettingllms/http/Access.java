package org.pettingllms.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;

/**
 * Who may use a server and what a request may carry, for both servers. With an API key (as vLLM's
 * {@code --api-key}), every route but the health checks needs {@code Authorization: Bearer <key>} (OpenAI clients)
 * or {@code X-API-Key: <key>} (Tinker's SDK), else a 401. A body over {@code maxRequestBytes} gets a 413 from its
 * Content-Length, before it is read. Loading adapters or weights from a path on the server's disk is refused (403)
 * unless {@code allowPathLoading} (vLLM needs {@code VLLM_ALLOW_RUNTIME_LORA_UPDATING} for the same routes).
 *
 * @param apiKey           the key clients must send; null: none needed
 * @param allowPathLoading whether requests may load adapters or weights from server paths
 * @param maxRequestBytes  the largest body accepted
 */
public record Access(String apiKey, boolean allowPathLoading, long maxRequestBytes) {
    /** 64 MiB: a Tinker forward_backward's datums (the SDK sends up to 5 MB) or a chat request with photos. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 64L << 20;

    public Access {
        if (apiKey != null && apiKey.isBlank()) {
            throw new IllegalArgumentException("--api-key: the key must not be blank");
        }
        if (maxRequestBytes < 1) {
            throw new IllegalArgumentException("the request size limit must be at least 1 byte");
        }
    }

    /** No key, path loading allowed, the default size limit: a server inside a trusted program (tests, a run). */
    public static Access open() {
        return new Access(null, true, DEFAULT_MAX_REQUEST_BYTES);
    }

    /**
     * The size limit and, with a key, the check before every route but {@code open} ones; refusals are
     * {@link BadRequest}s, which each server writes in its own error format.
     */
    public void install(JavalinConfig config, Set<String> open) {
        config.http.maxRequestSize = maxRequestBytes; // a body read past the limit without a length: Javalin's 413
        config.routes.before(ctx -> {
            if (ctx.contentLength() > maxRequestBytes) { // every route, whether or not it reads its body
                throw new BadRequest(
                        413,
                        null,
                        "the request body has " + ctx.contentLength() + " bytes; this server" + " takes at most "
                                + maxRequestBytes + " (--max-request-mb)");
            }
            if (apiKey != null && !open.contains(ctx.path()) && !authorized(ctx)) {
                throw new BadRequest(
                        401,
                        null,
                        "missing or wrong API key: send 'Authorization: Bearer <key>' (or "
                                + "'X-API-Key: <key>') with the key the server was started with (--api-key)");
            }
        });
    }

    private boolean authorized(Context ctx) {
        String bearer = ctx.header("Authorization");
        String header = ctx.header("X-API-Key");
        return (bearer != null && same(bearer, "Bearer " + apiKey)) || (header != null && same(header, apiKey));
    }

    /** Equality in time that does not depend on where the strings differ. */
    private static boolean same(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** Refuses a route that reads weights from a server path unless allowed. */
    public void checkPathLoading(String param) {
        if (!allowPathLoading) {
            throw new BadRequest(
                    403,
                    param,
                    "loading adapters or weights from a path on the server is off; start serve with"
                            + " --allow-path-loading to allow it");
        }
    }
}

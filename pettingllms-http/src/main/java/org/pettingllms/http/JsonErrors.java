package org.pettingllms.http;

import java.io.PrintWriter;
import java.util.function.BiFunction;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Jetty's own error answers (a request it refuses before any route sees it, such as a path with {@code %00}) in the
 * server's JSON error format instead of an HTML page, whatever the client accepts.
 */
public final class JsonErrors extends ErrorHandler {
    private final BiFunction<Integer, String, String> body;

    /** @param body the JSON body of an error, from its status and message */
    public JsonErrors(BiFunction<Integer, String, String> body) {
        this.body = body;
        setDefaultResponseMimeType("application/json");
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
        writer.write(body.apply(code, message == null ? "HTTP error " + code : message));
    }
}

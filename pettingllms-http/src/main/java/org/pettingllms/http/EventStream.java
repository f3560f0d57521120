package org.pettingllms.http;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A server-sent-events body as vLLM streams one: a {@code data: {json}} event per chunk, then {@code data: [DONE]}.
 * The engine returns whole completions, so the chunks of a request are written once its candidates are done: a
 * client sees every chunk, in order, only not earlier than the whole answer.
 */
public final class EventStream {
    public static final String CONTENT_TYPE = "text/event-stream";
    private final StringBuilder out = new StringBuilder();
    private final boolean doneMarker;

    /** Unnamed events ending with {@code data: [DONE]}: the completions endpoints' stream. */
    public EventStream() {
        this(true);
    }

    private EventStream(boolean doneMarker) {
        this.doneMarker = doneMarker;
    }

    /** Events named by their {@code type} ({@code event: response.created}) and no {@code [DONE]}: the Responses API's. */
    public static EventStream named() {
        return new EventStream(false);
    }

    public EventStream add(JsonNode chunk) {
        if (!doneMarker) {
            out.append("event: ").append(chunk.path("type").asText()).append('\n');
        }
        out.append("data: ").append(chunk.toString()).append("\n\n");
        return this;
    }

    public String done() {
        return doneMarker ? out.append("data: [DONE]\n\n").toString() : out.toString();
    }
}

package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A server-sent-events body as vLLM streams one: a {@code data: {json}} event per chunk, then {@code data: [DONE]}.
 * The engine returns whole completions, so the chunks of a request are written once its candidates are done: a
 * client sees every chunk, in order, only not earlier than the whole answer.
 */
final class EventStream {
    static final String CONTENT_TYPE = "text/event-stream";
    private final StringBuilder out = new StringBuilder();

    EventStream add(JsonNode chunk) {
        out.append("data: ").append(chunk.toString()).append("\n\n");
        return this;
    }

    String done() {
        return out.append("data: [DONE]\n\n").toString();
    }
}

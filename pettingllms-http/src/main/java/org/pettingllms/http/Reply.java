package org.pettingllms.http;

import com.fasterxml.jackson.databind.JsonNode;

/** A generation endpoint's answer: one JSON body, or a server-sent-events stream when the request asked for one. */
public record Reply(JsonNode json, String events) {
    public static Reply json(JsonNode body) {
        return new Reply(body, null);
    }

    public static Reply stream(EventStream events) {
        return new Reply(null, events.done());
    }
}

package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;

/** A generation endpoint's answer: one JSON body, or a server-sent-events stream when the request asked for one. */
record Reply(JsonNode json, String events) {
    static Reply json(JsonNode body) {
        return new Reply(body, null);
    }

    static Reply stream(EventStream events) {
        return new Reply(null, events.done());
    }
}

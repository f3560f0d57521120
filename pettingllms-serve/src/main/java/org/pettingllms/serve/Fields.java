package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Typed reads of request fields; a wrong type or range is a {@link BadRequest} naming the field. */
final class Fields {
    private Fields() {}

    static int integer(JsonNode body, String name, int def, int min, int max) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
            throw BadRequest.field(name, "expected an integer in [" + min + ", " + max + "], got " + v);
        }
        return v.asInt();
    }

    static double number(JsonNode body, String name, double def, double min, double max) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isNumber() || v.asDouble() < min || v.asDouble() > max) {
            throw BadRequest.field(name, "expected a number in [" + min + ", " + max + "], got " + v);
        }
        return v.asDouble();
    }

    static boolean bool(JsonNode body, String name, boolean def) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isBoolean()) {
            throw BadRequest.field(name, "expected true or false, got " + v);
        }
        return v.asBoolean();
    }

    static String text(JsonNode body, String name, String def) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            if (def == null) {
                throw BadRequest.field(name, "required");
            }
            return def;
        }
        if (!v.isTextual()) {
            throw BadRequest.field(
                    name, "expected a string, got " + v.getNodeType().name().toLowerCase());
        }
        return v.asText();
    }

    /** A string or a list of strings (OpenAI's {@code stop}). */
    static List<String> strings(JsonNode body, String name) {
        JsonNode v = body.get(name);
        List<String> out = new ArrayList<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (v.isTextual()) {
            out.add(v.asText());
            return out;
        }
        if (!v.isArray()) {
            throw BadRequest.field(name, "expected a string or a list of strings");
        }
        for (JsonNode s : v) {
            if (!s.isTextual()) {
                throw BadRequest.field(name, "expected a string or a list of strings");
            }
            out.add(s.asText());
        }
        return out;
    }

    /** A list of token ids, each in [0, vocab). */
    static int[] tokenIds(JsonNode v, String name, int vocab) {
        int[] ids = new int[v.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode t = v.get(i);
            if (!t.isIntegralNumber() || t.asInt() < 0 || t.asInt() >= vocab) {
                throw BadRequest.field(name, "token " + i + " is " + t + ", expected an id in [0, " + vocab + ")");
            }
            ids[i] = t.asInt();
        }
        return ids;
    }
}

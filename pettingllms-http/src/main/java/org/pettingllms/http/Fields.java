package org.pettingllms.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/** Typed reads of request fields; a wrong type or range is a {@link BadRequest} naming the field. */
public final class Fields {
    /** The most candidates one request may ask for. */
    public static final int MAX_N = 64;
    /** The most tokens one request may ask to generate (the model's context is checked separately). */
    public static final int MAX_TOKENS = 1 << 20;

    private Fields() {}

    public static int integer(JsonNode body, String name, int def, int min, int max) {
        return integer(body, name, name, def, min, max);
    }

    /** {@link #integer(JsonNode, String, int, int, int)} of an object nested in the body, named {@code param}. */
    public static int integer(JsonNode obj, String name, String param, int def, int min, int max) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < min || v.asInt() > max) {
            throw BadRequest.field(param, "expected an integer in [" + min + ", " + max + "], got " + v);
        }
        return v.asInt();
    }

    /** A 64-bit integer (a seed), or {@code def} when absent. */
    public static Long longInteger(JsonNode obj, String name, String param, Long def) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw BadRequest.field(param, "expected a 64-bit integer, got " + v);
        }
        return v.asLong();
    }

    public static double number(JsonNode body, String name, double def, double min, double max) {
        return number(body, name, name, def, min, max);
    }

    /** {@link #number(JsonNode, String, double, double, double)} of an object nested in the body, named {@code param}. */
    public static double number(JsonNode obj, String name, String param, double def, double min, double max) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isNumber() || v.asDouble() < min || v.asDouble() > max) {
            throw BadRequest.field(param, "expected a number in [" + min + ", " + max + "], got " + v);
        }
        return v.asDouble();
    }

    /** A field that must be a JSON object when present; an empty object when absent. */
    public static JsonNode object(JsonNode body, String name) {
        return object(body, name, name);
    }

    /** {@link #object(JsonNode, String)} of an object nested in the body, named {@code param}. */
    public static JsonNode object(JsonNode obj, String name, String param) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        }
        if (!v.isObject()) {
            throw BadRequest.field(
                    param, "expected an object, got " + v.getNodeType().name().toLowerCase());
        }
        return v;
    }

    public static boolean bool(JsonNode body, String name, boolean def) {
        return bool(body, name, name, def);
    }

    /** {@link #bool(JsonNode, String, boolean)} of an object nested in the body, named {@code param}. */
    public static boolean bool(JsonNode obj, String name, String param, boolean def) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return def;
        }
        if (!v.isBoolean()) {
            throw BadRequest.field(param, "expected true or false, got " + v);
        }
        return v.asBoolean();
    }

    public static String text(JsonNode body, String name, String def) {
        return text(body, name, name, def);
    }

    /** {@link #text(JsonNode, String, String)} of an object nested in the body, named {@code param}. */
    public static String text(JsonNode obj, String name, String param, String def) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            if (def == null) {
                throw BadRequest.field(param, "required");
            }
            return def;
        }
        if (!v.isTextual()) {
            throw BadRequest.field(
                    param, "expected a string, got " + v.getNodeType().name().toLowerCase());
        }
        return v.asText();
    }

    /** A field that must be a JSON array when present; an empty array when absent. */
    public static JsonNode array(JsonNode obj, String name, String param) {
        JsonNode v = obj.get(name);
        if (v == null || v.isNull()) {
            return com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        }
        if (!v.isArray()) {
            throw BadRequest.field(
                    param, "expected a list, got " + v.getNodeType().name().toLowerCase());
        }
        return v;
    }

    /** A string or a list of strings (OpenAI's {@code stop}). */
    public static List<String> strings(JsonNode body, String name) {
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

    /** A finite number; {@code param} names it in the refusal. */
    public static double finite(JsonNode v, String param) {
        if (v == null || !v.isNumber() || !Double.isFinite(v.asDouble())) {
            throw BadRequest.field(param, "expected a finite number, got " + v);
        }
        return v.asDouble();
    }

    /** Refuses a field this endpoint does not know, naming it and the fields it does. */
    public static void onlyKnown(JsonNode body, Set<String> known, String endpoint) {
        onlyKnown(body, known, endpoint, "");
    }

    /**
     * {@link #onlyKnown(JsonNode, Set, String)} of an object nested in the body: its fields are named {@code
     * prefix} + name ({@code lora_config.rank}).
     */
    public static void onlyKnown(JsonNode obj, Set<String> known, String where, String prefix) {
        if (!obj.isObject()) {
            throw BadRequest.field(
                    prefix.isEmpty() ? "body" : prefix.substring(0, prefix.length() - 1), "expected an object");
        }
        for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!known.contains(name)) {
                throw BadRequest.field(
                        prefix + name, "not supported by " + where + " here; its fields: " + new TreeSet<>(known));
            }
        }
    }

    /** Refuses a field set to anything but its no-op value ({@code what} says what the server does instead). */
    public static void onlyNoOp(JsonNode body, String name, Predicate<JsonNode> isNoOp, String what) {
        JsonNode v = body.get(name);
        if (v != null && !v.isNull() && !isNoOp.test(v)) {
            throw BadRequest.field(name, what + ", got " + v);
        }
    }

    /** A number field that may only be {@code value}. */
    public static void onlyNumber(JsonNode body, String name, double value, String what) {
        onlyNoOp(body, name, v -> v.isNumber() && v.asDouble() == value, what);
    }

    /** Penalties and biases the engine does not apply: allowed at their neutral values only. */
    public static void neutralPenalties(JsonNode body) {
        String no = "penalties are not applied by this server: leave it out or use ";
        onlyNumber(body, "presence_penalty", 0, no + "0");
        onlyNumber(body, "frequency_penalty", 0, no + "0");
        onlyNumber(body, "repetition_penalty", 1, no + "1");
        onlyNoOp(body, "logit_bias", v -> v.isObject() && v.isEmpty(), "logit biases are not applied by this server");
    }

    /** {@code stream} and {@code stream_options.include_usage}; options without streaming are refused, as vLLM does. */
    public record Streaming(boolean on, boolean usage) {
        public static Streaming of(JsonNode body) {
            boolean on = bool(body, "stream", false);
            JsonNode options = body.get("stream_options");
            if (options == null || options.isNull()) {
                return new Streaming(on, false);
            }
            if (!on) {
                throw BadRequest.field("stream_options", "only allowed when stream is true");
            }
            if (!options.isObject()) {
                throw BadRequest.field("stream_options", "expected an object");
            }
            onlyKnown(options, Set.of("include_usage"), "stream_options", "stream_options.");
            return new Streaming(true, bool(options, "include_usage", false));
        }
    }

    /** A list of token ids, each in [0, vocab). */
    public static int[] tokenIds(JsonNode v, String name, int vocab) {
        if (!v.isArray()) {
            throw BadRequest.field(name, "expected a list of token ids");
        }
        int[] ids = new int[v.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode t = v.get(i);
            if (!t.isIntegralNumber() || !t.canConvertToInt() || t.asInt() < 0 || t.asInt() >= vocab) {
                throw BadRequest.field(name, "token " + i + " is " + t + ", expected an id in [0, " + vocab + ")");
            }
            ids[i] = t.asInt();
        }
        return ids;
    }
}

package org.pettingllms.serve;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Image;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Http;

/**
 * A chat request's {@code messages}, checked and read into what a chat template reads: system, developer (read as
 * system), user, assistant with its earlier tool calls, and tool answers; content as a string, text parts, and
 * {@code image_url} parts with {@code data:} URLs, whose images are collected in order. Every refusal names the
 * message and part it is about.
 */
final class ChatMessages {
    /** A JSON object as a template reads it. */
    static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private ChatMessages() {}

    /** OpenAI's messages as the template reads them; their images, in order, go to {@code images}. */
    static List<Map<String, Object>> of(JsonNode msgs, List<Image> images) {
        if (msgs == null || !msgs.isArray() || msgs.isEmpty()) {
            throw BadRequest.field("messages", "required: a non-empty list of {role, content}");
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < msgs.size(); i++) {
            String at = "messages[" + i + "]";
            JsonNode m = msgs.get(i);
            if (!m.isObject()) {
                throw BadRequest.field(at, "expected an object {role, content}");
            }
            String role = m.path("role").asText("");
            Map<String, Object> map = new LinkedHashMap<>();
            switch (role) {
                case "system", "developer", "user", "assistant", "tool" ->
                    map.put("role", role.equals("developer") ? "system" : role);
                default ->
                    throw BadRequest.field(
                            at + ".role", "expected system, developer, user, assistant or tool, got '" + role + "'");
            }
            boolean calls = role.equals("assistant")
                    && m.path("tool_calls").isArray()
                    && !m.path("tool_calls").isEmpty();
            map.put("content", content(m.get("content"), at + ".content", calls, images));
            if (m.hasNonNull("name")) {
                map.put("name", m.get("name").asText());
            }
            if (calls) {
                map.put("tool_calls", toolCalls(m.get("tool_calls"), at + ".tool_calls"));
            }
            if (role.equals("tool")) {
                if (!m.path("tool_call_id").isTextual()) {
                    throw BadRequest.field(at + ".tool_call_id", "required for a tool message");
                }
                map.put("tool_call_id", m.get("tool_call_id").asText());
            }
            out.add(map);
        }
        return out;
    }

    /** Where the first image part is, for a refusal that concerns the images as a whole. */
    static String firstImageField(JsonNode msgs) {
        for (int i = 0; i < msgs.size(); i++) {
            JsonNode c = msgs.get(i).path("content");
            for (int j = 0; c.isArray() && j < c.size(); j++) {
                if (c.get(j).path("type").asText().equals("image_url")) {
                    return "messages[" + i + "].content[" + j + "]";
                }
            }
        }
        return "messages";
    }

    /**
     * A string, or a list of text parts (joined by newlines, as vLLM joins them); none for a call-only answer. With
     * {@code image_url} parts (a {@code data:} URL each; remote URLs are refused), the parts as a chat template
     * reads them ({@code {"type": "image"}} where each image was, the text parts between), the images to
     * {@code images}.
     */
    private static Object content(JsonNode c, String field, boolean mayBeNone, List<Image> images) {
        if ((c == null || c.isNull()) && mayBeNone) {
            return "";
        }
        if (c != null && c.isTextual()) {
            return c.asText();
        }
        if (c == null || !c.isArray()) {
            throw BadRequest.field(field, "expected a string or a list of text parts");
        }
        List<String> texts = new ArrayList<>();
        List<Map<String, Object>> parts = new ArrayList<>();
        boolean anyImage = false;
        for (int j = 0; j < c.size(); j++) {
            JsonNode part = c.get(j);
            String at = field + "[" + j + "]";
            if (part.path("type").asText().equals("image_url")) {
                JsonNode url = part.path("image_url").isTextual()
                        ? part.get("image_url")
                        : part.path("image_url").path("url");
                if (!url.isTextual()) {
                    throw BadRequest.field(at + ".image_url", "expected {\"url\": \"data:image/png;base64,...\"}");
                }
                try {
                    Image image = Image.fromDataUrl(url.asText(), at + ".image_url");
                    image.checkedDimensions(at + ".image_url"); // before it waits for a slot or is decoded
                    images.add(image);
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(400, at + ".image_url", e.getMessage());
                }
                parts.add(Map.of("type", "image"));
                anyImage = true;
                continue;
            }
            if (!part.path("type").asText().equals("text") || !part.path("text").isTextual()) {
                throw BadRequest.field(
                        at,
                        "only text parts {\"type\": \"text\", \"text\": ...} and image_url parts are supported,"
                                + " got " + part.path("type"));
            }
            texts.add(part.get("text").asText());
            parts.add(Map.of("type", "text", "text", part.get("text").asText()));
        }
        return anyImage ? parts : String.join("\n", texts);
    }

    /** An assistant's earlier calls; JSON-object arguments become objects, as templates read them (vLLM too). */
    private static List<Map<String, Object>> toolCalls(JsonNode calls, String field) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int j = 0; j < calls.size(); j++) {
            JsonNode call = calls.get(j);
            JsonNode f = call.path("function");
            if (!f.path("name").isTextual()) {
                throw BadRequest.field(field + "[" + j + "].function.name", "required");
            }
            Map<String, Object> fn = new LinkedHashMap<>();
            fn.put("name", f.get("name").asText());
            Object args = f.path("arguments").asText("{}");
            try {
                JsonNode parsed = Http.JSON.readTree((String) args);
                if (parsed != null && parsed.isObject()) {
                    args = Http.JSON.convertValue(parsed, MAP);
                }
            } catch (JacksonException e) {
                // not JSON: the template gets the string as sent
            }
            fn.put("arguments", args);
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("id", call.path("id").asText(""));
            map.put("type", "function");
            map.put("function", fn);
            out.add(map);
        }
        return out;
    }
}

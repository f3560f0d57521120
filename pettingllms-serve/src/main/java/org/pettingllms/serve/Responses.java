package org.pettingllms.serve;

import static org.pettingllms.serve.Generation.hex;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.EventStream;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Reply;
import org.pettingllms.text.ToolCalls;

/**
 * {@code /v1/responses}, OpenAI's Responses API, as a translation onto {@link ChatCompletions}: {@code input} (a
 * string, or items: messages with text or image parts, the model's earlier {@code function_call}s and their
 * {@code function_call_output}s) and {@code instructions} become the chat messages, {@code max_output_tokens} the
 * budget, the flat function tools the chat tools; the answer is one response object ({@code message} and
 * {@code function_call} output items, {@code usage} in input and output tokens), or its stream of named events in the
 * order the official clients accumulate ({@code response.created}, {@code response.in_progress}, each item's
 * {@code output_item.added}, its part or arguments and their deltas and {@code .done} events, then
 * {@code response.completed}, or {@code response.incomplete} when the budget cut the answer), each with its
 * {@code sequence_number}. Nothing is stored: {@code store: true} and {@code previous_response_id} are refused by
 * name, as are fields the engine cannot honour.
 */
final class Responses {
    private static final String ROUTE = "/v1/responses";
    private static final Set<String> FIELDS = Set.of(
            "model",
            "input",
            "instructions",
            "max_output_tokens",
            "temperature",
            "top_p",
            "seed",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "stream",
            "store",
            "previous_response_id",
            "metadata",
            "user",
            "text",
            "truncation");
    private final ChatCompletions chat;
    private final Generation g;

    Responses(ChatCompletions chat, Generation g) {
        this.chat = chat;
        this.g = g;
    }

    Reply answer(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.onlyKnown(body, FIELDS, ROUTE);
        Fields.onlyNoOp(body, "store", v -> v.isBoolean() && !v.asBoolean(), "this server stores no responses");
        Fields.onlyNoOp(
                body, "previous_response_id", JsonNode::isNull, "this server stores no responses to continue from");
        Fields.onlyNoOp(
                body, "text", v -> v.path("format").path("type").asText("text").equals("text"), "only text output");
        Fields.onlyNoOp(body, "truncation", v -> v.asText().equals("disabled"), "only \"disabled\"");
        boolean streaming = Fields.bool(body, "stream", false);
        ObjectNode request = chatRequest(body);
        ChatCompletions.Answers a;
        try {
            a = chat.generate(request, policies);
        } catch (BadRequest e) { // named as this request names it
            String param = e.param == null
                    ? null
                    : e.param.startsWith("messages") ? "input" : e.param.replace("max_tokens", "max_output_tokens");
            throw new BadRequest(e.status, param, e.getMessage().replace("'" + e.param + "'", "'" + param + "'"));
        }
        Completion c = a.out().get(0);
        ToolCalls t = a.answers().get(0);
        String id = "resp_" + hex();
        ObjectNode done = response(body, id, a.shape().name(), status(c));
        ArrayNode output = done.putArray("output");
        if (t.calls().isEmpty() || (t.content() != null && !t.content().isBlank())) {
            output.add(message("msg_" + hex(), t.content() == null ? "" : t.content(), "completed"));
        }
        for (ToolCalls.Call call : t.calls()) {
            output.add(functionCall("fc_" + hex(), "call_" + hex(), call, call.arguments(), "completed"));
        }
        usage(done.putObject("usage"), a.shape().prompt().length, c.tokens().size());
        return streaming ? Reply.stream(stream(body, done, c, t)) : Reply.json(done);
    }

    /** The chat request this one stands for. */
    private static ObjectNode chatRequest(JsonNode body) {
        ObjectNode r = Http.JSON.createObjectNode();
        for (String same : List.of("model", "temperature", "top_p", "seed", "tool_choice", "parallel_tool_calls")) {
            if (body.has(same)) {
                r.set(same, body.get(same));
            }
        }
        if (body.has("max_output_tokens")) {
            r.set("max_tokens", body.get("max_output_tokens"));
        }
        ArrayNode messages = r.putArray("messages");
        if (body.hasNonNull("instructions")) {
            messages.addObject().put("role", "system").put("content", Fields.text(body, "instructions", ""));
        }
        JsonNode input = body.get("input");
        if (input == null || input.isNull() || (input.isArray() && input.isEmpty())) {
            throw BadRequest.field("input", "required: a string or a non-empty list of input items");
        }
        if (input.isTextual()) {
            messages.addObject().put("role", "user").put("content", input.asText());
        } else if (input.isArray()) {
            for (int i = 0; i < input.size(); i++) {
                item(input.get(i), "input[" + i + "]", messages);
            }
        } else {
            throw BadRequest.field("input", "expected a string or a list of input items");
        }
        JsonNode tools = body.get("tools");
        if (tools != null && !tools.isNull()) {
            if (!tools.isArray()) {
                throw BadRequest.field("tools", "expected a list of {type: function, name, parameters}");
            }
            ArrayNode out = r.putArray("tools");
            for (int j = 0; j < tools.size(); j++) {
                JsonNode tool = tools.get(j);
                if (!tool.path("type").asText().equals("function")) {
                    throw BadRequest.field("tools[" + j + "].type", "only function tools, got " + tool.path("type"));
                }
                ObjectNode fn = out.addObject().put("type", "function").putObject("function");
                for (String f : List.of("name", "description", "parameters")) {
                    if (tool.has(f)) {
                        fn.set(f, tool.get(f));
                    }
                }
            }
        }
        return r;
    }

    /** One input item as chat messages: a message, a call the model made (joined to its turn), a call's output. */
    private static void item(JsonNode item, String at, ArrayNode messages) {
        if (!item.isObject()) {
            throw BadRequest.field(at, "expected an input item object");
        }
        String type = item.path("type").asText("message");
        switch (type) {
            case "message" -> {
                String role = item.path("role").asText("");
                ObjectNode m = messages.addObject().put("role", role);
                JsonNode content = item.get("content");
                if (content != null && content.isArray()) {
                    ArrayNode parts = m.putArray("content");
                    for (int j = 0; j < content.size(); j++) {
                        part(content.get(j), at + ".content[" + j + "]", parts);
                    }
                } else {
                    m.set("content", content);
                }
            }
            case "function_call" -> {
                if (!item.path("call_id").isTextual() || !item.path("name").isTextual()) {
                    throw BadRequest.field(at, "a function_call needs call_id and name");
                }
                ObjectNode last = messages.isEmpty() ? null : (ObjectNode) messages.get(messages.size() - 1);
                ObjectNode turn = last != null
                                && last.path("role").asText().equals("assistant")
                                && !last.path("tool_calls").isMissingNode()
                        ? last
                        : messages.addObject().put("role", "assistant").putNull("content");
                ArrayNode calls =
                        turn.has("tool_calls") ? (ArrayNode) turn.get("tool_calls") : turn.putArray("tool_calls");
                ObjectNode call = calls.addObject()
                        .put("id", item.get("call_id").asText())
                        .put("type", "function");
                call.putObject("function")
                        .put("name", item.get("name").asText())
                        .put("arguments", item.path("arguments").asText("{}"));
            }
            case "function_call_output" -> {
                if (!item.path("call_id").isTextual()) {
                    throw BadRequest.field(at + ".call_id", "required for a function_call_output");
                }
                JsonNode output = item.get("output");
                messages.addObject()
                        .put("role", "tool")
                        .put("tool_call_id", item.get("call_id").asText())
                        .put(
                                "content",
                                output == null || output.isTextual()
                                        ? item.path("output").asText("")
                                        : output.toString());
            }
            default ->
                throw BadRequest.field(
                        at + ".type", "expected message, function_call or function_call_output, got '" + type + "'");
        }
    }

    /** A content part: input or output text as a chat text part, an input image as a chat image part. */
    private static void part(JsonNode p, String at, ArrayNode parts) {
        String type = p.path("type").asText("");
        switch (type) {
            case "input_text", "output_text", "text" ->
                parts.addObject().put("type", "text").put("text", p.path("text").asText(""));
            case "input_image" -> {
                if (!p.path("image_url").isTextual()) {
                    throw BadRequest.field(at + ".image_url", "expected a data: URL (files are not stored here)");
                }
                parts.addObject()
                        .put("type", "image_url")
                        .putObject("image_url")
                        .put("url", p.get("image_url").asText());
            }
            default -> throw BadRequest.field(at + ".type", "expected input_text or input_image, got '" + type + "'");
        }
    }

    private static String status(Completion c) {
        return Generation.finishReason(c).equals("length") ? "incomplete" : "completed";
    }

    /** The response object without its output and usage. */
    private ObjectNode response(JsonNode body, String id, String name, String status) {
        ObjectNode r = Http.JSON
                .createObjectNode()
                .put("id", id)
                .put("object", "response")
                .put("created_at", System.currentTimeMillis() / 1000)
                .put("status", status)
                .putNull("error");
        if (status.equals("incomplete")) {
            r.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            r.putNull("incomplete_details");
        }
        r.set("instructions", body.path("instructions").isTextual() ? body.get("instructions") : null);
        r.set("max_output_tokens", body.hasNonNull("max_output_tokens") ? body.get("max_output_tokens") : null);
        r.put("model", g.modelName(name));
        r.put("parallel_tool_calls", Fields.bool(body, "parallel_tool_calls", true));
        r.putNull("previous_response_id");
        r.put("store", false);
        r.put("temperature", body.path("temperature").asDouble(1.0));
        r.put("top_p", body.path("top_p").asDouble(1.0));
        r.put("tool_choice", body.path("tool_choice").asText("auto"));
        r.set("tools", body.path("tools").isArray() ? body.get("tools") : Http.JSON.createArrayNode());
        r.putObject("text").putObject("format").put("type", "text");
        r.put("truncation", "disabled");
        r.set("metadata", body.path("metadata").isObject() ? body.get("metadata") : Http.JSON.createObjectNode());
        return r;
    }

    private static ObjectNode message(String id, String text, String status) {
        ObjectNode m = Http.JSON
                .createObjectNode()
                .put("type", "message")
                .put("id", id)
                .put("status", status)
                .put("role", "assistant");
        ArrayNode content = m.putArray("content");
        if (text != null) {
            content.add(textPart(text));
        }
        return m;
    }

    private static ObjectNode textPart(String text) {
        ObjectNode p = Http.JSON.createObjectNode().put("type", "output_text").put("text", text);
        p.putArray("annotations");
        return p;
    }

    private static ObjectNode functionCall(String id, String callId, ToolCalls.Call call, String args, String status) {
        return Http.JSON
                .createObjectNode()
                .put("type", "function_call")
                .put("id", id)
                .put("call_id", callId)
                .put("name", call.name())
                .put("arguments", args)
                .put("status", status);
    }

    private static void usage(ObjectNode u, long input, long output) {
        u.put("input_tokens", input);
        u.putObject("input_tokens_details").put("cached_tokens", 0);
        u.put("output_tokens", output);
        u.putObject("output_tokens_details").put("reasoning_tokens", 0);
        u.put("total_tokens", input + output);
    }

    /** The whole response as the event sequence a streaming client accumulates into the same object. */
    private EventStream stream(JsonNode body, ObjectNode done, Completion c, ToolCalls t) {
        Events e = new Events();
        ObjectNode started = done.deepCopy().put("status", "in_progress");
        started.putNull("incomplete_details");
        started.putArray("output");
        started.putNull("usage");
        e.add("response.created", o -> o.set("response", started));
        e.add("response.in_progress", o -> o.set("response", started));
        JsonNode output = done.get("output");
        for (int i = 0; i < output.size(); i++) {
            int index = i;
            JsonNode item = output.get(i);
            String itemId = item.get("id").asText();
            if (item.get("type").asText().equals("message")) {
                String text = item.path("content").path(0).path("text").asText();
                e.add(
                        "response.output_item.added",
                        o -> o.put("output_index", index).set("item", message(itemId, null, "in_progress")));
                e.add("response.content_part.added", o -> part(o, itemId, index).set("part", textPart("")));
                // the sampled tokens' pieces, or the text whole where tool calls were read out of it
                List<String> pieces = t.calls().isEmpty() ? g.pieces(c) : List.of(text);
                for (String piece : pieces) {
                    e.add(
                            "response.output_text.delta",
                            o -> part(o, itemId, index).put("delta", piece).putArray("logprobs"));
                }
                e.add(
                        "response.output_text.done",
                        o -> part(o, itemId, index).put("text", text).putArray("logprobs"));
                e.add("response.content_part.done", o -> part(o, itemId, index).set("part", textPart(text)));
            } else {
                ObjectNode open =
                        ((ObjectNode) item.deepCopy()).put("arguments", "").put("status", "in_progress");
                e.add(
                        "response.output_item.added",
                        o -> o.put("output_index", index).set("item", open));
                String args = item.get("arguments").asText();
                e.add(
                        "response.function_call_arguments.delta",
                        o -> o.put("item_id", itemId).put("output_index", index).put("delta", args));
                e.add(
                        "response.function_call_arguments.done",
                        o -> o.put("item_id", itemId)
                                .put("output_index", index)
                                .put("name", item.get("name").asText())
                                .put("arguments", args));
            }
            e.add("response.output_item.done", o -> o.put("output_index", index).set("item", item));
        }
        e.add(
                done.get("status").asText().equals("incomplete") ? "response.incomplete" : "response.completed",
                o -> o.set("response", done));
        return e.events;
    }

    private static ObjectNode part(ObjectNode o, String itemId, int index) {
        return o.put("item_id", itemId).put("output_index", index).put("content_index", 0);
    }

    /** Named events numbered in order. */
    private static final class Events {
        final EventStream events = EventStream.named();
        int next;

        void add(String type, java.util.function.Consumer<ObjectNode> fill) {
            ObjectNode o = Http.JSON.createObjectNode().put("type", type).put("sequence_number", next++);
            fill.accept(o);
            events.add(o);
        }
    }
}

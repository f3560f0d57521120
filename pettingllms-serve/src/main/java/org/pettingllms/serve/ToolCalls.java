package org.pettingllms.serve;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tool calls in a completion's text, in the Hermes format that Qwen2.5, Qwen3 and other chat templates teach
 * (vLLM's {@code hermes} parser): {@code <tool_call>{"name": ..., "arguments": {...}}</tool_call>}, one block per
 * call, the last possibly cut off by the budget. Text before the first block is the message's content. A block that
 * is not such JSON leaves the whole text as content, as vLLM does.
 */
record ToolCalls(String content, List<Call> calls) {
    private static final Pattern BLOCK = Pattern.compile("<tool_call>(.*?)(?:</tool_call>|\\z)", Pattern.DOTALL);

    /** One call: its id, the function's name, and its arguments as a JSON string. */
    record Call(String id, String name, String arguments) {}

    static ToolCalls parse(String text) {
        int first = text.indexOf("<tool_call>");
        if (first < 0) {
            return new ToolCalls(text, List.of());
        }
        List<Call> calls = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        for (int from = first; from < text.length() && m.find(from); from = m.end()) {
            JsonNode call;
            try {
                call = InferenceServer.JSON.readTree(m.group(1).strip());
            } catch (JacksonException e) {
                return new ToolCalls(text, List.of());
            }
            if (call == null || !call.path("name").isTextual()) {
                return new ToolCalls(text, List.of());
            }
            JsonNode args = call.path("arguments");
            calls.add(new Call(
                    "chatcmpl-tool-" + UUID.randomUUID().toString().replace("-", ""),
                    call.get("name").asText(),
                    args.isMissingNode() ? "{}" : args.isTextual() ? args.asText() : args.toString()));
        }
        String content = text.substring(0, first).strip();
        return new ToolCalls(content.isEmpty() ? null : content, calls);
    }
}

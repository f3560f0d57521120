package org.pettingllms.text;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tool calls in a completion's text, in the Hermes format that Qwen2.5, Qwen3 and other chat templates teach
 * (vLLM's {@code hermes} parser): {@code <tool_call>{"name": ..., "arguments": {...}}</tool_call>}, one block per
 * call, the last possibly cut off by the budget. Text before the first block is the message's content. A block that
 * is not such JSON leaves the whole text as content, as vLLM does. Calls carry no ids: whoever answers assigns them
 * (a server random ones, a replayed program ones that repeat).
 */
public record ToolCalls(String content, List<Call> calls) {
    private static final Pattern BLOCK = Pattern.compile("<tool_call>(.*?)(?:</tool_call>|\\z)", Pattern.DOTALL);
    private static final ObjectMapper JSON = new ObjectMapper();

    public ToolCalls {
        calls = List.copyOf(calls);
    }

    /** One call: the function's name and its arguments as a JSON string. */
    public record Call(String name, String arguments) {}

    /** The text as it is, no calls: for answers to requests that offered no tools. */
    public static ToolCalls none(String text) {
        return new ToolCalls(text, List.of());
    }

    public static ToolCalls parse(String text) {
        int first = text.indexOf("<tool_call>");
        if (first < 0) {
            return none(text);
        }
        List<Call> calls = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        for (int from = first; from < text.length() && m.find(from); from = m.end()) {
            JsonNode call;
            try {
                call = JSON.readTree(m.group(1).strip());
            } catch (JacksonException e) {
                return none(text);
            }
            if (call == null || !call.path("name").isTextual()) {
                return none(text);
            }
            JsonNode args = call.path("arguments");
            calls.add(new Call(
                    call.get("name").asText(),
                    args.isMissingNode() ? "{}" : args.isTextual() ? args.asText() : args.toString()));
        }
        String content = text.substring(0, first).strip();
        return new ToolCalls(content.isEmpty() ? null : content, calls);
    }

    /** The first call only (a request that asked for no parallel calls). */
    public ToolCalls firstCallOnly() {
        return calls.size() > 1 ? new ToolCalls(content, calls.subList(0, 1)) : this;
    }
}

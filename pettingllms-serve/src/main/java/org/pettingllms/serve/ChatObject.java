package org.pettingllms.serve;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.pettingllms.core.data.Completion;
import org.pettingllms.http.Http;
import org.pettingllms.text.ToolCalls;

/**
 * A chat request's answers as one {@code chat.completion} object: each choice's message (content, the tool calls
 * read from it), logprobs, finish reason and token ids, then the usage. The parts a choice is written with are
 * {@link ChatChunks}' too, so both forms of an answer say the same.
 */
final class ChatObject {
    private final Generation g;
    private final Logprobs logprobs;

    ChatObject(Generation g, Logprobs logprobs) {
        this.g = g;
        this.logprobs = logprobs;
    }

    ObjectNode of(ChatCompletions.Answers a) {
        ChatCompletions.Shape s = a.shape();
        ObjectNode root = g.header(s.id(), "chat.completion", s.name());
        ArrayNode choices = root.putArray("choices");
        long completionTokens = 0;
        for (int i = 0; i < a.out().size(); i++) {
            Completion c = a.out().get(i);
            ToolCalls t = a.answers().get(i);
            completionTokens += c.tokens().size();
            ObjectNode choice = choices.addObject().put("index", i);
            ObjectNode message = choice.putObject("message").put("role", "assistant");
            if (t.content() == null) {
                message.putNull("content");
            } else {
                message.put("content", t.content());
            }
            if (!t.calls().isEmpty()) {
                calls(message.putArray("tool_calls"), t.calls());
            }
            if (s.logprobs()) {
                logprobs.chat(
                        choice.putObject("logprobs").putArray("content"),
                        c,
                        0,
                        c.tokens().size(),
                        s.top(i));
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", finishReason(c, t));
            if (s.tokenIds()) {
                ids(choice.putArray("token_ids"), c.tokens().toArray());
            }
        }
        if (s.tokenIds()) {
            ids(root.putArray("prompt_token_ids"), s.prompt());
        }
        Http.usage(root.putObject("usage"), s.prompt().length, completionTokens);
        return root;
    }

    /** A choice's calls, each with a fresh id (written once per choice, in either form of the answer). */
    static void calls(ArrayNode out, List<ToolCalls.Call> calls) {
        for (int j = 0; j < calls.size(); j++) {
            ToolCalls.Call call = calls.get(j);
            String id = "chatcmpl-tool-" + Generation.hex();
            ObjectNode o = out.addObject().put("index", j).put("id", id).put("type", "function");
            o.putObject("function").put("name", call.name()).put("arguments", call.arguments());
        }
    }

    /** A choice that made calls ends for them, whatever ended its sampling. */
    static String finishReason(Completion c, ToolCalls t) {
        return t.calls().isEmpty() ? Generation.finishReason(c) : "tool_calls";
    }

    static void ids(ArrayNode out, int[] ids) {
        for (int id : ids) {
            out.add(id);
        }
    }
}

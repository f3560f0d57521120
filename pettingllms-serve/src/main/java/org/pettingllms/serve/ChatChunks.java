package org.pettingllms.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Consumer;
import org.pettingllms.core.data.Completion;
import org.pettingllms.http.EventStream;
import org.pettingllms.text.ToolCalls;

/**
 * A chat request's answers as a stream of {@code chat.completion.chunk}s, choice after choice: the role, the text a
 * token at a time (each with its logprobs), or for a choice that made tool calls its content and then the calls,
 * the finish reason with the token ids, and with {@code stream_options.include_usage} a last chunk of usage. Joined,
 * the chunks say what {@link ChatObject} says.
 */
final class ChatChunks {
    private final Generation g;
    private final Logprobs logprobs;

    ChatChunks(Generation g, Logprobs logprobs) {
        this.g = g;
        this.logprobs = logprobs;
    }

    EventStream of(ChatCompletions.Answers a) {
        ChatCompletions.Shape s = a.shape();
        EventStream events = new EventStream();
        long completionTokens = 0;
        for (int i = 0; i < a.out().size(); i++) {
            Completion c = a.out().get(i);
            ToolCalls t = a.answers().get(i);
            completionTokens += c.tokens().size();
            events.add(chunk(s, i, d -> d.put("role", "assistant").put("content", "")));
            if (t.calls().isEmpty()) {
                List<String> pieces = g.pieces(c);
                for (int k = 0; k < pieces.size(); k++) {
                    String piece = pieces.get(k);
                    ObjectNode chunk = chunk(s, i, d -> d.put("content", piece));
                    if (s.logprobs()) {
                        ObjectNode choice = (ObjectNode) chunk.path("choices").get(0);
                        logprobs.chat(choice.putObject("logprobs").putArray("content"), c, k, k + 1, s.top(i));
                    }
                    events.add(chunk);
                }
            } else { // the calls are known once the text is whole: content, then every call in one delta
                if (t.content() != null) {
                    events.add(chunk(s, i, d -> d.put("content", t.content())));
                }
                events.add(chunk(s, i, d -> ChatObject.calls(d.putArray("tool_calls"), t.calls())));
            }
            ObjectNode last = chunk(s, i, d -> {});
            ObjectNode choice = (ObjectNode) last.path("choices").get(0);
            choice.put("finish_reason", ChatObject.finishReason(c, t));
            if (s.tokenIds()) {
                ChatObject.ids(choice.putArray("token_ids"), c.tokens().toArray());
            }
            events.add(last);
        }
        if (a.streaming().usage()) {
            events.add(g.usageChunk(s.id(), "chat.completion.chunk", s.name(), s.prompt().length, completionTokens));
        }
        return events;
    }

    /** A chunk of choice {@code index} whose delta {@code fill} writes. */
    private ObjectNode chunk(ChatCompletions.Shape s, int index, Consumer<ObjectNode> fill) {
        ObjectNode chunk = g.header(s.id(), "chat.completion.chunk", s.name());
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", index);
        fill.accept(choice.putObject("delta"));
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        return chunk;
    }
}

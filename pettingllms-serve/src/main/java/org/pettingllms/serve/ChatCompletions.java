package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Reply;
import org.pettingllms.text.ToolCalls;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * {@code /v1/chat/completions}: the request's fields checked and read, its {@link ChatPrompt} sampled, each answer
 * read for tool calls ({@link ToolCalls}), and the answers sent as one {@link ChatObject} or as {@link ChatChunks}.
 * Fields the engine cannot honour are refused by name, never ignored. {@link Responses} samples through
 * {@link #generate} too.
 */
final class ChatCompletions {
    private static final Set<String> FIELDS = Set.of(
            "model",
            "messages",
            "n",
            "max_tokens",
            "max_completion_tokens",
            "temperature",
            "top_p",
            "top_k",
            "seed",
            "stop",
            "logprobs",
            "top_logprobs",
            "return_token_ids",
            "stream",
            "stream_options",
            "user",
            "metadata",
            "store",
            "presence_penalty",
            "frequency_penalty",
            "repetition_penalty",
            "logit_bias",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "response_format",
            "chat_template_kwargs");
    private final Generation g;
    private final ChatObject whole;
    private final ChatChunks chunks;

    /** The base model's id as clients know it: what messages name (never its local path). */
    private final String servedName;

    ChatCompletions(Generation g, String servedName) {
        this.g = g;
        this.servedName = servedName;
        Logprobs logprobs = new Logprobs(g.codec);
        this.whole = new ChatObject(g, logprobs);
        this.chunks = new ChatChunks(g, logprobs);
    }

    Reply answer(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.onlyKnown(body, FIELDS, "/v1/chat/completions");
        Answers a = generate(body, policies);
        return a.streaming().on() ? Reply.stream(chunks.of(a)) : Reply.json(whole.of(a));
    }

    /** A chat request's candidates, each read for tool calls, what its answer is to hold, and how to send it. */
    record Answers(Shape shape, List<Completion> out, List<ToolCalls> answers, Fields.Streaming streaming) {}

    /** What a request asked the answer to hold. */
    record Shape(
            String id, String name, int[] prompt, boolean logprobs, List<SequenceBatch.Top> tops, boolean tokenIds) {
        /** Completion {@code i}'s top tokens, or null when none were asked for. */
        SequenceBatch.Top top(int i) {
            return tops == null ? null : tops.get(i);
        }
    }

    /** Samples a chat request (its fields checked; the route's own check of unknown fields comes first). */
    Answers generate(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.neutralPenalties(body);
        Fields.onlyNoOp(
                body,
                "response_format",
                v -> v.path("type").asText().equals("text"),
                "only {\"type\": \"text\"}: this server does not constrain answers to JSON");
        Fields.onlyNoOp(body, "store", v -> v.isBoolean() && !v.asBoolean(), "this server stores no completions");
        String name = body.hasNonNull("model") ? Fields.text(body, "model", "") : null;
        PolicyRef policy = policies.apply(name);
        ChatPrompt prompt = ChatPrompt.of(g, body, policy, name == null ? servedName : name);
        int n = Fields.integer(body, "n", 1, 1, Fields.MAX_N);
        int maxTokens = body.hasNonNull("max_completion_tokens")
                ? Fields.integer(body, "max_completion_tokens", 256, 0, Fields.MAX_TOKENS)
                : Fields.integer(body, "max_tokens", 256, 0, Fields.MAX_TOKENS);
        SamplingParams params = g.params(body, maxTokens, "seed");
        boolean logprobs = Fields.bool(body, "logprobs", false);
        int top = Fields.integer(body, "top_logprobs", 0, 0, Generation.MAX_TOP_LOGPROBS);
        if (top > 0 && !logprobs) {
            throw BadRequest.field("top_logprobs", "needs logprobs: true");
        }
        boolean tokenIds = Fields.bool(body, "return_token_ids", false);
        boolean oneCall = !Fields.bool(body, "parallel_tool_calls", true);
        Fields.Streaming streaming = Fields.Streaming.of(body);
        List<Completion> out;
        try {
            out = g.sample(policy, prompt.ids(), prompt.images(), n, params, maxTokens);
        } catch (IllegalArgumentException e) { // a prompt the engine refuses (longer than the model's context)
            throw BadRequest.field("messages", e.getMessage());
        }
        List<ToolCalls> answers = new ArrayList<>(out.size());
        for (Completion c : out) {
            ToolCalls t = prompt.tools() ? ToolCalls.parse(c.text()) : ToolCalls.none(c.text());
            answers.add(oneCall ? t.firstCallOnly() : t);
        }
        List<SequenceBatch.Top> tops = top > 0 ? g.tops(policy, prompt.ids(), prompt.images(), out, top) : null;
        Shape shape = new Shape("chatcmpl-" + UUID.randomUUID(), name, prompt.ids(), logprobs, tops, tokenIds);
        return new Answers(shape, out, answers, streaming);
    }
}

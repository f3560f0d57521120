package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The generation endpoints' request and response bodies, as vLLM and SGLang define them. Candidate {@code i} of a
 * request with seed {@code s} is sampled exactly as the embedded sampler samples it ({@code derive(s, i)}), so a
 * remote run and an in-process run with the same seeds draw the same tokens.
 */
final class Generation {
    static final int MAX_N = 64;
    static final int MAX_TOKENS = 1 << 20;
    private final EmbeddedEngine engine;
    private final String model;
    private final TextCodec codec;
    private final int vocab;
    private volatile String weightVersion = "default";

    Generation(EmbeddedEngine engine, String model) {
        this.engine = engine;
        this.model = model;
        this.codec = engine.codec(model);
        this.vocab = engine.registry().model(model).config().vocabSize();
    }

    /** The base weights' version, reported as SGLang's {@code meta_info.weight_version}. */
    void weightVersion(String version) {
        this.weightVersion = version;
    }

    /** vLLM's {@code /v1/completions}: {@code prompt} as text or token ids. */
    ObjectNode completions(JsonNode body, Function<String, PolicyRef> policies) {
        String name = body.hasNonNull("model") ? Fields.text(body, "model", "") : null;
        PolicyRef policy = policies.apply(name);
        JsonNode p = body.get("prompt");
        int[] ids;
        if (p == null || p.isNull()) {
            throw BadRequest.field("prompt", "required: a string or a list of token ids");
        } else if (p.isTextual()) {
            ids = codec.encode(p.asText());
        } else if (p.isArray() && (p.isEmpty() || p.get(0).isNumber())) {
            ids = Fields.tokenIds(p, "prompt", vocab);
        } else {
            throw BadRequest.field("prompt", "expected one prompt: a string or a list of token ids");
        }
        if (ids.length == 0) {
            throw BadRequest.field("prompt", "the prompt is empty");
        }
        int n = Fields.integer(body, "n", 1, 1, MAX_N);
        SamplingParams params = params(body, Fields.integer(body, "max_tokens", 16, 0, MAX_TOKENS), "seed");
        boolean logprobs = body.hasNonNull("logprobs");
        if (logprobs) {
            Fields.integer(body, "logprobs", 0, 0, 20);
        }
        boolean tokenIds = Fields.bool(body, "return_token_ids", false);
        List<Completion> out = engine.sampler().sampleTokens(policy, ids, n, params);
        ObjectNode root = header("cmpl-", "text_completion", name);
        ArrayNode choices = root.putArray("choices");
        long completionTokens = 0;
        for (int i = 0; i < out.size(); i++) {
            Completion c = out.get(i);
            completionTokens += c.tokens().size();
            ObjectNode choice = choices.addObject().put("index", i).put("text", c.text());
            if (logprobs) {
                ObjectNode lp = choice.putObject("logprobs");
                ArrayNode tokens = lp.putArray("tokens");
                ArrayNode values = lp.putArray("token_logprobs");
                ArrayNode top = lp.putArray("top_logprobs");
                ArrayNode offsets = lp.putArray("text_offset");
                int offset = 0;
                for (int t = 0; t < c.tokens().size(); t++) {
                    String piece = codec.decode(new int[] {c.tokens().get(t)});
                    tokens.add(piece);
                    values.add(c.logprobs().get(t));
                    top.addObject().put(piece, c.logprobs().get(t));
                    offsets.add(offset);
                    offset += piece.length();
                }
            } else {
                choice.putNull("logprobs");
            }
            choice.put("finish_reason", c.finish() == FinishReason.LENGTH ? "length" : "stop");
            String matched = matchedStop(c, params);
            if (matched == null) {
                choice.putNull("stop_reason");
            } else {
                choice.put("stop_reason", matched);
            }
            if (tokenIds) {
                ArrayNode t = choice.putArray("token_ids");
                for (int k = 0; k < c.tokens().size(); k++) {
                    t.add(c.tokens().get(k));
                }
                ArrayNode pt = choice.putArray("prompt_token_ids");
                for (int id : ids) {
                    pt.add(id);
                }
            }
        }
        root.putObject("usage")
                .put("prompt_tokens", ids.length)
                .put("completion_tokens", completionTokens)
                .put("total_tokens", ids.length + completionTokens);
        return root;
    }

    /** {@code /v1/chat/completions}: the messages through the model's chat template. */
    ObjectNode chat(JsonNode body, Function<String, PolicyRef> policies) {
        String name = body.hasNonNull("model") ? Fields.text(body, "model", "") : null;
        PolicyRef policy = policies.apply(name);
        JsonNode msgs = body.get("messages");
        if (msgs == null || !msgs.isArray() || msgs.isEmpty()) {
            throw BadRequest.field("messages", "required: a non-empty list of {role, content}");
        }
        List<ChatMessage> messages = new ArrayList<>();
        for (int i = 0; i < msgs.size(); i++) {
            JsonNode m = msgs.get(i);
            String role = m.path("role").asText("");
            ChatMessage.Speaker speaker = switch (role) {
                case "system" -> ChatMessage.Speaker.SYSTEM;
                case "user" -> ChatMessage.Speaker.USER;
                case "assistant" -> ChatMessage.Speaker.ASSISTANT;
                default ->
                    throw BadRequest.field(
                            "messages[" + i + "].role", "expected system, user or assistant," + " got '" + role + "'");
            };
            if (!m.path("content").isTextual()) {
                throw BadRequest.field("messages[" + i + "].content", "expected a string");
            }
            messages.add(new ChatMessage(speaker, m.path("content").asText()));
        }
        int n = Fields.integer(body, "n", 1, 1, MAX_N);
        int maxTokens = body.hasNonNull("max_completion_tokens")
                ? Fields.integer(body, "max_completion_tokens", 256, 0, MAX_TOKENS)
                : Fields.integer(body, "max_tokens", 256, 0, MAX_TOKENS);
        SamplingParams params = params(body, maxTokens, "seed");
        List<Completion> out;
        try {
            out = engine.sampler().sample(policy, new Prompt(messages, PromptStyle.CHAT), n, params);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw BadRequest.field("messages", e.getMessage());
        }
        ObjectNode root = header("chatcmpl-", "chat.completion", name);
        ArrayNode choices = root.putArray("choices");
        long completionTokens = 0;
        for (int i = 0; i < out.size(); i++) {
            Completion c = out.get(i);
            completionTokens += c.tokens().size();
            ObjectNode choice = choices.addObject().put("index", i);
            choice.putObject("message").put("role", "assistant").put("content", c.text());
            choice.put("finish_reason", c.finish() == FinishReason.LENGTH ? "length" : "stop");
        }
        int promptTokens = out.isEmpty() ? 0 : out.get(0).promptTokens().size();
        root.putObject("usage")
                .put("prompt_tokens", promptTokens)
                .put("completion_tokens", completionTokens)
                .put("total_tokens", promptTokens + completionTokens);
        return root;
    }

    /** SGLang's {@code /generate}: {@code input_ids} or {@code text}, {@code sampling_params}, {@code lora_path}. */
    JsonNode generate(JsonNode body, Function<String, PolicyRef> policies) {
        PolicyRef policy = policies.apply(body.hasNonNull("lora_path") ? Fields.text(body, "lora_path", "") : null);
        int[] ids;
        if (body.hasNonNull("input_ids")) {
            JsonNode in = body.get("input_ids");
            if (!in.isArray() || (!in.isEmpty() && !in.get(0).isNumber())) {
                throw BadRequest.field("input_ids", "expected one prompt as a list of token ids");
            }
            ids = Fields.tokenIds(in, "input_ids", vocab);
        } else if (body.hasNonNull("text")) {
            ids = codec.encode(Fields.text(body, "text", ""));
        } else {
            throw BadRequest.field("input_ids", "required: input_ids or text");
        }
        if (ids.length == 0) {
            throw BadRequest.field("input_ids", "the prompt is empty");
        }
        JsonNode sp = body.path("sampling_params");
        if (!sp.isMissingNode() && !sp.isObject()) {
            throw BadRequest.field("sampling_params", "expected an object");
        }
        int n = Fields.integer(sp, "n", 1, 1, MAX_N);
        SamplingParams params = params(sp, Fields.integer(sp, "max_new_tokens", 128, 0, MAX_TOKENS), "sampling_seed");
        boolean logprobs = Fields.bool(body, "return_logprob", false);
        List<Completion> out = engine.sampler().sampleTokens(policy, ids, n, params);
        ArrayNode all = InferenceServer.JSON.createArrayNode();
        for (Completion c : out) {
            ObjectNode r = all.addObject().put("text", c.text());
            ArrayNode outIds = r.putArray("output_ids");
            for (int k = 0; k < c.tokens().size(); k++) {
                outIds.add(c.tokens().get(k));
            }
            ObjectNode meta =
                    r.putObject("meta_info").put("id", UUID.randomUUID().toString());
            ObjectNode finish = meta.putObject("finish_reason");
            if (c.finish() == FinishReason.LENGTH) {
                finish.put("type", "length").put("length", c.tokens().size());
            } else {
                finish.put("type", "stop");
                String matched = matchedStop(c, params);
                if (matched != null) {
                    finish.put("matched", matched);
                } else if (c.tokens().size() > 0) {
                    finish.put("matched", c.tokens().get(c.tokens().size() - 1));
                }
            }
            meta.put("prompt_tokens", ids.length)
                    .put("completion_tokens", c.tokens().size())
                    .put("weight_version", weightVersion);
            if (logprobs) {
                ArrayNode lp = meta.putArray("output_token_logprobs");
                for (int k = 0; k < c.tokens().size(); k++) {
                    lp.addArray()
                            .add(c.logprobs().get(k))
                            .add(c.tokens().get(k))
                            .addNull();
                }
            }
        }
        return n == 1 ? all.get(0) : all;
    }

    /**
     * The sampling fields every protocol names alike ({@code temperature}, {@code top_k} with -1 or 0 for none,
     * {@code top_p}, {@code stop}), the token budget each names its own way, and the seed under {@code seedField}.
     */
    private SamplingParams params(JsonNode fields, int maxTokens, String seedField) {
        return new SamplingParams(
                Fields.number(fields, "temperature", 1.0, 0, 100),
                Math.max(0, Fields.integer(fields, "top_k", 0, -1, vocab)),
                Fields.number(fields, "top_p", 1.0, 1e-9, 1),
                maxTokens,
                Fields.strings(fields, "stop"),
                seed(fields, seedField));
    }

    /** An OpenAI-style response's first fields: id, object, created, model. */
    private ObjectNode header(String idPrefix, String object, String name) {
        return InferenceServer.JSON
                .createObjectNode()
                .put("id", idPrefix + UUID.randomUUID())
                .put("object", object)
                .put("created", System.currentTimeMillis() / 1000)
                .put("model", name == null ? model : name);
    }

    /** The stop string that ended a completion, or null (end of sequence, or the budget). */
    private String matchedStop(Completion c, SamplingParams params) {
        if (c.finish() != FinishReason.STOP_STRING) {
            return null;
        }
        String full = codec.decode(c.tokens().toArray());
        String best = null;
        int at = Integer.MAX_VALUE;
        for (String s : params.stop()) {
            int i = full.indexOf(s);
            if (i >= 0 && i < at) {
                at = i;
                best = s;
            }
        }
        return best;
    }

    private static long seed(JsonNode body, String name) {
        JsonNode v = body.get(name);
        if (v == null || v.isNull()) {
            return ThreadLocalRandom.current().nextLong();
        }
        if (!v.isIntegralNumber()) {
            throw BadRequest.field(name, "expected an integer, got " + v);
        }
        return v.asLong();
    }
}

package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.EventStream;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.Reply;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * vLLM's {@code /v1/completions}: one prompt or a list of them (text or token ids), {@code n} candidates each
 * (choice {@code p * n + i}), the sampled token's logprob, {@code echo}, {@code return_token_ids}, and the same as a
 * stream of chunks. Fields the engine cannot honour are refused by name, never ignored.
 */
final class Completions {
    private static final Set<String> FIELDS = Set.of(
            "model",
            "prompt",
            "n",
            "best_of",
            "max_tokens",
            "temperature",
            "top_p",
            "top_k",
            "seed",
            "stop",
            "logprobs",
            "echo",
            "return_token_ids",
            "stream",
            "stream_options",
            "user",
            "presence_penalty",
            "frequency_penalty",
            "repetition_penalty",
            "logit_bias",
            "suffix");
    private final Generation g;
    private final Logprobs logprobs;

    Completions(Generation g) {
        this.g = g;
        this.logprobs = new Logprobs(g.codec);
    }

    Reply answer(JsonNode body, Function<String, PolicyRef> policies) {
        Fields.onlyKnown(body, FIELDS, "/v1/completions");
        Fields.neutralPenalties(body);
        Fields.onlyNoOp(body, "suffix", v -> v.isTextual() && v.asText().isEmpty(), "suffixes are not supported");
        String name = body.hasNonNull("model") ? Fields.text(body, "model", "") : null;
        PolicyRef policy = policies.apply(name);
        List<int[]> prompts = prompts(body.get("prompt"));
        int n = Fields.integer(body, "n", 1, 1, Fields.MAX_N);
        Fields.onlyNoOp(
                body,
                "best_of",
                v -> v.isIntegralNumber() && v.asInt() == n,
                "best_of must equal n (every candidate is returned)");
        int maxTokens = Fields.integer(body, "max_tokens", 16, 0, Fields.MAX_TOKENS);
        SamplingParams params = g.params(body, maxTokens, "seed");
        boolean logprobs = body.hasNonNull("logprobs");
        int top = logprobs ? Fields.integer(body, "logprobs", 0, 0, Generation.MAX_TOP_LOGPROBS) : 0;
        boolean echo = Fields.bool(body, "echo", false);
        boolean tokenIds = Fields.bool(body, "return_token_ids", false);
        Fields.Streaming streaming = Fields.Streaming.of(body);
        if (echo && top > 0) {
            throw BadRequest.field("logprobs", "with echo, only logprobs 0 (the prompt's tokens' own logprobs)");
        }
        if (echo && logprobs && streaming.on()) {
            throw BadRequest.field("echo", "prompt logprobs (echo with logprobs) are returned without streaming only");
        }
        List<List<Completion>> out = new ArrayList<>(prompts.size());
        for (int[] ids : prompts) {
            out.add(g.sample(policy, ids, n, params, maxTokens));
        }
        String id = "cmpl-" + UUID.randomUUID();
        Shape shape = new Shape(id, name, policy, logprobs, top, echo, tokenIds, params);
        return streaming.on()
                ? Reply.stream(stream(shape, prompts, out, streaming.usage()))
                : Reply.json(whole(shape, prompts, out));
    }

    /** What a request asked the answer to hold. */
    private record Shape(
            String id,
            String name,
            PolicyRef policy,
            boolean logprobs,
            int top,
            boolean echo,
            boolean tokenIds,
            SamplingParams params) {}

    private List<int[]> prompts(JsonNode p) {
        if (p == null || p.isNull()) {
            throw BadRequest.field("prompt", "required: a string, a list of token ids, or a list of either");
        }
        List<int[]> out = new ArrayList<>();
        if (p.isTextual() || (p.isArray() && (p.isEmpty() || p.get(0).isNumber()))) {
            out.add(one(p, "prompt"));
        } else if (p.isArray()) {
            for (int i = 0; i < p.size(); i++) {
                out.add(one(p.get(i), "prompt[" + i + "]"));
            }
        } else {
            throw BadRequest.field("prompt", "expected a string, a list of token ids, or a list of either");
        }
        return out;
    }

    private int[] one(JsonNode p, String field) {
        int[] ids;
        if (p.isTextual()) {
            ids = g.codec.encode(p.asText());
        } else if (p.isArray()) {
            ids = Fields.tokenIds(p, field, g.vocab);
        } else {
            throw BadRequest.field(field, "expected a string or a list of token ids");
        }
        if (ids.length == 0) {
            throw BadRequest.field(field, "the prompt is empty");
        }
        return ids;
    }

    private ObjectNode whole(Shape s, List<int[]> prompts, List<List<Completion>> out) {
        ObjectNode root = g.header(s.id, "text_completion", s.name);
        ArrayNode choices = root.putArray("choices");
        long promptTokens = 0;
        long completionTokens = 0;
        for (int p = 0; p < out.size(); p++) {
            int[] ids = prompts.get(p);
            promptTokens += ids.length;
            List<Completion> cs = out.get(p);
            // echo with logprobs (vLLM's prompt scoring): the prompt's tokens come first, the first without one
            int[] echoed = s.echo ? ids : new int[0];
            float[] echoedLogprobs = s.echo && s.logprobs ? promptLogprobs(s.policy, ids) : new float[0];
            List<SequenceBatch.Top> tops = s.top > 0 ? g.tops(s.policy, ids, List.of(), cs, s.top) : null;
            for (int i = 0; i < cs.size(); i++) {
                Completion c = cs.get(i);
                completionTokens += c.tokens().size();
                String text = (s.echo ? g.codec.decode(ids) : "") + c.text();
                ObjectNode choice =
                        choices.addObject().put("index", p * cs.size() + i).put("text", text);
                if (s.logprobs) {
                    logprobs.completion(
                            choice.putObject("logprobs"),
                            concat(echoed, c.tokens().toArray()),
                            concat(echoedLogprobs, c.logprobs().toArray()),
                            0,
                            tops == null ? null : tops.get(i),
                            0);
                } else {
                    choice.putNull("logprobs");
                }
                finish(choice, c, s);
                if (s.tokenIds) {
                    tokenIds(choice, ids, c);
                }
            }
        }
        Http.usage(root.putObject("usage"), promptTokens, completionTokens);
        return root;
    }

    private EventStream stream(Shape s, List<int[]> prompts, List<List<Completion>> out, boolean usage) {
        EventStream events = new EventStream();
        long promptTokens = 0;
        long completionTokens = 0;
        for (int p = 0; p < out.size(); p++) {
            int[] ids = prompts.get(p);
            promptTokens += ids.length;
            List<Completion> cs = out.get(p);
            List<SequenceBatch.Top> tops = s.top > 0 ? g.tops(s.policy, ids, List.of(), cs, s.top) : null;
            for (int i = 0; i < cs.size(); i++) {
                Completion c = cs.get(i);
                int index = p * cs.size() + i;
                completionTokens += c.tokens().size();
                List<String> pieces = g.pieces(c);
                int chunks = Math.max(1, pieces.size()) + (s.echo ? 1 : 0);
                int offset = 0;
                for (int k = 0; k < chunks; k++) {
                    boolean echoChunk = s.echo && k == 0;
                    int t = k - (s.echo ? 1 : 0); // the token this chunk carries, if any
                    boolean last = k == chunks - 1;
                    String text = echoChunk ? g.codec.decode(ids) : t < pieces.size() ? pieces.get(t) : "";
                    ObjectNode chunk = g.header(s.id, "text_completion", s.name);
                    ObjectNode choice = chunk.putArray("choices")
                            .addObject()
                            .put("index", index)
                            .put("text", text);
                    if (s.logprobs && !echoChunk && t < pieces.size()) {
                        logprobs.completion(
                                choice.putObject("logprobs"),
                                new int[] {c.tokens().get(t)},
                                new float[] {c.logprobs().get(t)},
                                offset,
                                tops == null ? null : tops.get(i),
                                t);
                        offset += text.length();
                    } else {
                        choice.putNull("logprobs");
                    }
                    if (last) {
                        finish(choice, c, s);
                        if (s.tokenIds) {
                            tokenIds(choice, ids, c);
                        }
                    } else {
                        choice.putNull("finish_reason").putNull("stop_reason");
                    }
                    events.add(chunk);
                }
            }
        }
        if (usage) {
            events.add(g.usageChunk(s.id, "text_completion", s.name, promptTokens, completionTokens));
        }
        return events;
    }

    /** Each prompt token's logprob given the tokens before it, under the request's policy; NaN for the first. */
    private float[] promptLogprobs(PolicyRef policy, int[] ids) {
        float[] out = new float[ids.length];
        out[0] = Float.NaN;
        if (ids.length > 1) {
            int[] rest = Arrays.copyOfRange(ids, 1, ids.length);
            FloatSeq lp = g.engine
                    .learner()
                    .logprobs(
                            policy,
                            List.of(new TrainExample(
                                    IntSeq.of(ids[0]), IntSeq.of(rest), FloatSeq.of(new float[rest.length]), 0)))
                    .get(0);
            for (int i = 0; i < rest.length; i++) {
                out[i + 1] = lp.get(i);
            }
        }
        return out;
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static float[] concat(float[] a, float[] b) {
        float[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private void finish(ObjectNode choice, Completion c, Shape s) {
        choice.put("finish_reason", Generation.finishReason(c));
        String matched = g.matchedStop(c, s.params);
        if (matched == null) {
            choice.putNull("stop_reason");
        } else {
            choice.put("stop_reason", matched);
        }
    }

    private static void tokenIds(ObjectNode choice, int[] prompt, Completion c) {
        ArrayNode t = choice.putArray("token_ids");
        for (int k = 0; k < c.tokens().size(); k++) {
            t.add(c.tokens().get(k));
        }
        ArrayNode pt = choice.putArray("prompt_token_ids");
        for (int id : prompt) {
            pt.add(id);
        }
    }
}

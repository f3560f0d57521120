package org.pettingllms.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * What the generation endpoints share: the engine, the sampling fields, response headers, and SGLang's
 * {@code /generate}. Candidate {@code i} of a request with seed {@code s} is sampled exactly as the embedded sampler
 * samples it ({@code derive(s, i)}), so a remote run and an in-process run with the same seeds draw the same tokens.
 */
final class Generation {
    final EmbeddedEngine engine;
    final String model;
    final TextCodec codec;
    final int vocab;
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
        int n = Fields.integer(sp, "n", 1, 1, Fields.MAX_N);
        int maxTokens = Fields.integer(sp, "max_new_tokens", 128, 0, Fields.MAX_TOKENS);
        SamplingParams params = params(sp, maxTokens, "sampling_seed");
        boolean logprobs = Fields.bool(body, "return_logprob", false);
        List<Completion> out = sample(policy, ids, n, params, maxTokens);
        ArrayNode all = Http.JSON.createArrayNode();
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
    SamplingParams params(JsonNode fields, int maxTokens, String seedField) {
        return new SamplingParams(
                Fields.number(fields, "temperature", 1.0, 0, 100),
                Math.max(0, Fields.integer(fields, "top_k", 0, -1, vocab)),
                Fields.number(fields, "top_p", 1.0, 1e-9, 1),
                Math.max(1, maxTokens), // a budget of 0 samples nothing (see sample); the settings still need one
                Fields.strings(fields, "stop"),
                seed(fields, seedField));
    }

    /** An OpenAI-style response's first fields: id, object, created, model. */
    ObjectNode header(String id, String object, String name) {
        return Http.JSON
                .createObjectNode()
                .put("id", id)
                .put("object", object)
                .put("created", System.currentTimeMillis() / 1000)
                .put("model", modelName(name));
    }

    /** A stream's last chunk, for {@code stream_options.include_usage}: no choices, the whole request's usage. */
    ObjectNode usageChunk(String id, String object, String name, long promptTokens, long completionTokens) {
        ObjectNode chunk = header(id, object, name);
        chunk.putArray("choices");
        Http.usage(chunk.putObject("usage"), promptTokens, completionTokens);
        return chunk;
    }

    /** A random id's hex digits (a UUID's without its dashes), as OpenAI's prefixed ids carry them. */
    static String hex() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** The model a request named, or the served model's when it named none. */
    String modelName(String name) {
        return name == null ? model : name;
    }

    /** Samples {@code n} candidates; a budget of zero tokens (what scoring requests ask) samples none. */
    List<Completion> sample(PolicyRef policy, int[] ids, int n, SamplingParams params, int maxTokens) {
        return sample(policy, ids, List.of(), n, params, maxTokens);
    }

    /** As {@link #sample(PolicyRef, int[], int, SamplingParams, int)} for ids that show {@code images}. */
    List<Completion> sample(
            PolicyRef policy, int[] ids, List<Image> images, int n, SamplingParams params, int maxTokens) {
        // as vLLM: a request must fit the model's context, else its max_tokens would size the KV cache of every row
        // batched with it
        int context = engine.registry().model(model).config().maxPositionEmbeddings();
        if ((long) ids.length + maxTokens > context) {
            throw new BadRequest(
                    400,
                    "max_tokens",
                    "this model's maximum context length is " + context + " tokens; the request asks for "
                            + ((long) ids.length + maxTokens) + " (" + ids.length + " in the prompt, " + maxTokens
                            + " for the completion): shorten the prompt or lower max_tokens");
        }
        if (maxTokens == 0) {
            List<Completion> empty = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                empty.add(new Completion(IntSeq.of(ids), IntSeq.empty(), FloatSeq.empty(), "", FinishReason.LENGTH, 0));
            }
            return empty;
        }
        return engine.sampler().sampleTokens(policy, ids, images, n, params);
    }

    /** OpenAI's {@code finish_reason}: "length" when the budget ended it, else "stop". */
    static String finishReason(Completion c) {
        return c.finish() == FinishReason.LENGTH ? "length" : "stop";
    }

    /**
     * The text each token adds, for streaming: each decoded prefix cut to what it shares with the completion's text
     * (which ends before a stop string and leaves the end token out), less a last character still incomplete (a
     * byte-level piece decoding to U+FFFD); the last token adds the rest. The pieces join to the completion's text.
     */
    List<String> pieces(Completion c) {
        List<String> out = new ArrayList<>(c.tokens().size());
        int[] ids = c.tokens().toArray();
        String text = c.text();
        int done = 0;
        for (int t = 0; t < ids.length; t++) {
            int upto = text.length();
            if (t < ids.length - 1) {
                String now = codec.decode(Arrays.copyOf(ids, t + 1));
                int shared = 0;
                while (shared < Math.min(now.length(), text.length()) && now.charAt(shared) == text.charAt(shared)) {
                    shared++;
                }
                upto = shared == now.length() || !now.endsWith("\uFFFD") ? shared : shared - 1;
            }
            out.add(upto > done ? text.substring(done, upto) : "");
            done = Math.max(done, upto);
        }
        return out;
    }

    /** The stop string that ended a completion, or null (end of sequence, or the budget). */
    String matchedStop(Completion c, SamplingParams params) {
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

    /** The most tokens {@code logprobs} / {@code top_logprobs} may ask for, as OpenAI and vLLM allow. */
    static final int MAX_TOP_LOGPROBS = 20;

    /**
     * For each completion, the {@code n} most likely tokens at each of its positions given the prompt (and images),
     * from one more forward pass under the same policy: the raw distribution, as vLLM reports top logprobs.
     */
    List<SequenceBatch.Top> tops(
            PolicyRef policy, int[] prompt, List<Image> images, List<Completion> completions, int n) {
        List<TrainExample> batch = new ArrayList<>();
        for (Completion c : completions) {
            int[] ids = c.tokens().toArray();
            batch.add(
                    new TrainExample(IntSeq.of(prompt), IntSeq.of(ids), FloatSeq.of(new float[ids.length]), 0, images));
        }
        return engine.learner().topLogprobs(policy, batch, n);
    }
}

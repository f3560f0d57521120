package org.pettingllms.tinker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.text.TextCodec;

/**
 * A {@link Sampler} over the Tinker sampling API ({@code asample}): a policy's completions come from the weights
 * its {@link TinkerLearner} last published ({@code model_path}), or from the base model before its first publish (a
 * fresh LoRA starts as the base model). Prompts go as token ids, rendered by the policy's codec; completions come
 * back as ids with their logprobs, stamped with the published weight version.
 */
public final class TinkerSampler implements Sampler {
    private final TinkerClient client;
    private final TinkerLearner learner;
    private final Function<PolicyRef, TextCodec> codecs;

    public TinkerSampler(TinkerClient client, TinkerLearner learner, Function<PolicyRef, TextCodec> codecs) {
        this.client = client;
        this.learner = learner;
        this.codecs = codecs;
    }

    @Override
    public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
        if (!prompt.images().isEmpty()) {
            // the prompt goes out as encoded text chunks: its pixels would not reach the service
            throw new UnsupportedOperationException("a Tinker sampler sends token ids and no images yet; this prompt"
                    + " shows " + prompt.images().size() + " (use the embedded engine)");
        }
        TextCodec codec = codecs.apply(policy);
        int[] ids = codec.encodePrompt(prompt);
        var published = learner.published(policy);
        ObjectNode body = TinkerClient.JSON.createObjectNode().put("num_samples", n);
        ArrayNode tokens = body.putObject("prompt")
                .putArray("chunks")
                .addObject()
                .put("type", "encoded_text")
                .putArray("tokens");
        for (int id : ids) {
            tokens.add(id);
        }
        ObjectNode sp = body.putObject("sampling_params")
                .put("max_tokens", params.maxTokens())
                .put("seed", params.seed())
                .put("temperature", params.temperature())
                .put("top_k", params.topK() > 0 ? params.topK() : -1)
                .put("top_p", params.topP());
        ArrayNode stop = sp.putArray("stop");
        params.stop().forEach(stop::add);
        if (published.isPresent()) {
            body.put("model_path", published.get().path());
        } else {
            body.put("base_model", learner.settings().baseModel());
        }
        body.put("topk_prompt_logprobs", 0).put("type", "sample");
        long version = published.map(TinkerLearner.Published::version).orElse(0L);
        JsonNode seqs = client.run("asample", body).path("sequences");
        if (!seqs.isArray() || seqs.size() != n) {
            throw new TinkerException(
                    "asample: expected " + n + " sequences, got " + (seqs.isArray() ? seqs.size() : 0), 200);
        }
        List<Completion> out = new ArrayList<>(n);
        for (JsonNode s : seqs) {
            int[] t = ints(s.path("tokens"));
            JsonNode lp = s.path("logprobs");
            if (!lp.isArray() || lp.size() != t.length) {
                throw new TinkerException(
                        "asample: a sequence of " + t.length + " tokens came with " + (lp.isArray() ? lp.size() : 0)
                                + " logprobs",
                        200);
            }
            float[] l = new float[t.length];
            for (int i = 0; i < l.length; i++) {
                l[i] = (float) lp.get(i).asDouble();
            }
            // Tinker says stop or length; this project's server adds which stop, and the text as its engine cut it
            String reason = s.path("stop_reason").asText("stop");
            FinishReason finish = reason.equals("length")
                    ? FinishReason.LENGTH
                    : s.path("finish").asText("").equals("stop_string") ? FinishReason.STOP_STRING : FinishReason.EOS;
            String text = s.path("text").isTextual() ? s.get("text").asText() : codec.decode(t);
            out.add(new Completion(IntSeq.of(ids), IntSeq.of(t), FloatSeq.of(l), text, finish, version));
        }
        return out;
    }

    private static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }
}

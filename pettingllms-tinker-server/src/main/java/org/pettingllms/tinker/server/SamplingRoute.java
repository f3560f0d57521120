package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;

/**
 * {@code asample}: completions of a prompt from saved sampler weights ({@code model_path}) or the base model; what
 * would change the numbers here (prompt logprobs, sampling sessions, replaced weights) is refused by name.
 */
final class SamplingRoute {
    private static final Set<String> SAMPLING_FIELDS =
            Set.of("max_tokens", "seed", "stop", "temperature", "top_k", "top_p");

    private final ServedModel served;
    private final SamplerWeights samplers;
    private final Requests requests;

    SamplingRoute(ServedModel served, SamplerWeights samplers, Requests requests) {
        this.served = served;
        this.samplers = samplers;
        this.requests = requests;
    }

    void sample(Context ctx, JsonNode body) throws Exception {
        PolicyRef policy;
        SamplerWeights.Published weights = null;
        if (body.hasNonNull("sampling_session_id")) {
            throw BadRequest.field("sampling_session_id", "sampling sessions are not kept here: give model_path");
        }
        if (Fields.bool(body, "prompt_logprobs", false)) {
            throw BadRequest.field("prompt_logprobs", "prompt logprobs are not computed here: leave it out or false");
        }
        if (Fields.integer(body, "topk_prompt_logprobs", 0, 0, Integer.MAX_VALUE) != 0) {
            throw BadRequest.field("topk_prompt_logprobs", "prompt logprobs are not computed here: leave it 0");
        }
        Fields.bool(body, "record_stability_info", false);
        Fields.integer(body, "seq_id", 0, 0, Integer.MAX_VALUE);
        if (body.hasNonNull("model_path")) {
            weights = samplers.lookup(Fields.text(body, "model_path", null));
            policy = weights.policy();
        } else if (served.serves(Fields.text(body, "base_model", ""))) {
            policy = PolicyRef.of(served.model());
        } else {
            throw BadRequest.field(
                    "model_path",
                    "give model_path or base_model '" + served.options().servedName() + "'");
        }
        int[] prompt = TinkerDatum.tokens(Fields.object(body, "prompt"), "prompt", served.vocab());
        if (prompt.length == 0) {
            throw BadRequest.field("prompt", "expected chunks of encoded_text tokens");
        }
        JsonNode sp = Fields.object(body, "sampling_params");
        Fields.onlyKnown(sp, SAMPLING_FIELDS, "asample", "sampling_params.");
        int maxTokens = Fields.integer(sp, "max_tokens", "sampling_params.max_tokens", 0, 0, Fields.MAX_TOKENS);
        if (maxTokens < 1) {
            throw BadRequest.field("sampling_params.max_tokens", "required, >= 1");
        }
        int context = served.context();
        if ((long) prompt.length + maxTokens > context) {
            throw BadRequest.field(
                    "sampling_params.max_tokens",
                    "this model's context is " + context + " tokens; the prompt has " + prompt.length
                            + " and max_tokens asks for " + maxTokens + " more");
        }
        SamplingParams params = params(sp, maxTokens);
        int n = Fields.integer(body, "num_samples", 1, 1, Fields.MAX_N);
        SamplerWeights.Published asked = weights;
        requests.submit(ctx, null, 0, () -> {
            // again when it runs: an optimizer step may have come between the request and its turn
            if (asked != null && !samplers.live(asked)) {
                throw new IllegalArgumentException("the sampler weights were replaced by an optimizer step before"
                        + " the request ran; save them for sampling again");
            }
            return answer(served.engine().sampler().sampleTokens(policy, prompt, n, params));
        });
    }

    /** {@code sampling_params} as the engine's, its values checked (a seed drawn when none is given). */
    private static SamplingParams params(JsonNode sp, int maxTokens) {
        List<String> stop = new ArrayList<>();
        JsonNode s = sp.path("stop");
        if (s.isTextual()) {
            stop.add(s.asText());
        } else if (s.isArray()) {
            for (JsonNode x : s) {
                if (!x.isTextual()) {
                    throw BadRequest.field(
                            "sampling_params.stop", "stop strings only (the engine stops at EOS itself)");
                }
                stop.add(x.asText());
            }
        } else if (!s.isMissingNode() && !s.isNull()) {
            throw BadRequest.field("sampling_params.stop", "expected a string or a list of strings");
        }
        Long seed = Fields.longInteger(sp, "seed", "sampling_params.seed", null);
        try {
            return new SamplingParams(
                    Fields.number(sp, "temperature", "sampling_params.temperature", 1, 0, 1e6),
                    Math.max(0, Fields.integer(sp, "top_k", "sampling_params.top_k", -1, -1, Integer.MAX_VALUE)),
                    Fields.number(sp, "top_p", "sampling_params.top_p", 1, 0, 1),
                    maxTokens,
                    stop,
                    seed != null ? seed : new Random().nextLong());
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("sampling_params", e.getMessage());
        }
    }

    /** Tinker's sample answer: each completion's tokens, logprobs and why it stopped. */
    private static ObjectNode answer(List<Completion> out) {
        ObjectNode r = json().put("type", "sample");
        ArrayNode seqs = r.putArray("sequences");
        for (Completion c : out) {
            ObjectNode q = seqs.addObject()
                    .put("stop_reason", c.finish() == FinishReason.LENGTH ? "length" : "stop")
                    // beyond Tinker's fields: which stop, and the text as the engine cut it at a stop string
                    .put("finish", c.finish() == FinishReason.STOP_STRING ? "stop_string" : "eos")
                    .put("text", c.text());
            ArrayNode t = q.putArray("tokens");
            for (int k = 0; k < c.tokens().size(); k++) {
                t.add(c.tokens().get(k));
            }
            ArrayNode l = q.putArray("logprobs");
            for (int k = 0; k < c.logprobs().size(); k++) {
                l.add(c.logprobs().get(k));
            }
        }
        return r;
    }
}

package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;

/**
 * A Tinker datum as {@link TinkerServer} reads it: the input tokens, the targets (the inputs shifted by one), and for
 * training the sampler's logprobs, the completion's first position (the first with a non-zero logprob or advantage:
 * Tinker marks prompt positions by zeros; -1 when there is none) and the advantage of every position (they may
 * vary within a sequence: asynchronous training weighs each token's); for forward passes the cross-entropy weights.
 */
record TinkerDatum(int[] tokens, int[] targets, double[] logprobs, double[] weights, int start, double[] advantages) {
    private static final Set<String> DATUM_FIELDS = Set.of("model_input", "loss_fn_inputs");
    private static final Set<String> TRAIN_INPUTS = Set.of("target_tokens", "logprobs", "advantages");
    private static final Set<String> FORWARD_INPUTS = Set.of("target_tokens", "weights", "logprobs", "advantages");
    private static final Set<String> CHUNK_FIELDS = Set.of("type", "tokens");
    private static final Set<String> TENSOR_FIELDS = Set.of("data", "dtype", "shape");

    /**
     * @param vocab   the model's vocabulary: every token id and target must be in [0, vocab)
     * @param context the model's context: a longer datum is refused
     */
    static List<TinkerDatum> read(JsonNode data, String field, boolean backward, int vocab, int context) {
        if (!data.isArray() || data.isEmpty()) {
            throw BadRequest.field(field, "expected a non-empty list of datums");
        }
        List<TinkerDatum> out = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            out.add(one(data.get(i), field + "[" + i + "]", backward, vocab, context));
        }
        return out;
    }

    /** A model input's tokens: its {@code chunks}, each {@code encoded_text} with token ids in [0, vocab). */
    static int[] tokens(JsonNode modelInput, String at, int vocab) {
        Fields.onlyKnown(modelInput, Set.of("chunks"), at, at + ".");
        JsonNode chunks = Fields.array(modelInput, "chunks", at + ".chunks");
        List<int[]> parts = new ArrayList<>();
        int n = 0;
        for (int i = 0; i < chunks.size(); i++) {
            String c = at + ".chunks[" + i + "]";
            JsonNode chunk = chunks.get(i);
            Fields.onlyKnown(chunk, CHUNK_FIELDS, c, c + ".");
            if (!Fields.text(chunk, "type", c + ".type", "encoded_text").equals("encoded_text")) {
                throw BadRequest.field(c + ".type", "only encoded_text chunks (no images on this server)");
            }
            int[] ids = Fields.tokenIds(Fields.array(chunk, "tokens", c + ".tokens"), c + ".tokens", vocab);
            parts.add(ids);
            n += ids.length;
        }
        int[] all = new int[n];
        int at0 = 0;
        for (int[] p : parts) {
            System.arraycopy(p, 0, all, at0, p.length);
            at0 += p.length;
        }
        return all;
    }

    private static TinkerDatum one(JsonNode d, String at, boolean backward, int vocab, int context) {
        Fields.onlyKnown(d, DATUM_FIELDS, at, at + ".");
        int[] tokens = tokens(Fields.object(d, "model_input", at + ".model_input"), at + ".model_input", vocab);
        if (tokens.length == 0) {
            throw BadRequest.field(at + ".model_input", "no tokens");
        }
        if (tokens.length + 1 > context) { // the engine reads tokens[0] + targets: one more position
            throw BadRequest.field(
                    at + ".model_input",
                    tokens.length + " tokens; this model's context is " + context + " (one more for the last target)");
        }
        String inputs = at + ".loss_fn_inputs";
        JsonNode in = Fields.object(d, "loss_fn_inputs", inputs);
        Fields.onlyKnown(in, backward ? TRAIN_INPUTS : FORWARD_INPUTS, inputs, inputs + ".");
        double[] t = numbers(in.path("target_tokens"), inputs + ".target_tokens", tokens.length);
        int[] targets = new int[t.length];
        for (int k = 0; k < t.length; k++) {
            if (t[k] != Math.rint(t[k]) || t[k] < 0 || t[k] >= vocab) {
                throw BadRequest.field(
                        inputs + ".target_tokens",
                        "value " + k + " is " + t[k] + ", expected an id in [0, " + vocab + ")");
            }
            targets[k] = (int) t[k];
        }
        for (int k = 0; k + 1 < tokens.length; k++) { // the engine reads the sequence as tokens[0] + targets
            if (tokens[k + 1] != targets[k]) {
                throw BadRequest.field(
                        inputs + ".target_tokens",
                        "expected model_input shifted by one (target " + k + " = input " + (k + 1) + ")");
            }
        }
        if (!backward) {
            double[] weights = in.has("weights")
                    ? numbers(in.path("weights"), inputs + ".weights", tokens.length)
                    : new double[tokens.length];
            return new TinkerDatum(tokens, targets, null, weights, -1, null);
        }
        double[] logprobs = numbers(in.path("logprobs"), inputs + ".logprobs", tokens.length);
        double[] adv = numbers(in.path("advantages"), inputs + ".advantages", tokens.length);
        int start = -1;
        for (int k = 0; k < adv.length && start < 0; k++) {
            if (adv[k] != 0 || logprobs[k] != 0) {
                start = k;
            }
        }
        return new TinkerDatum(tokens, targets, logprobs, null, start, adv);
    }

    /** A tensor's values, one per input position; sparse tensors are refused. */
    private static double[] numbers(JsonNode tensor, String field, int length) {
        if (!tensor.isObject()) {
            throw BadRequest.field(field, "expected {data: [...]} with " + length + " values, one per input position");
        }
        if (tensor.has("sparse_crow_indices")) {
            throw BadRequest.field(field, "sparse tensors are not supported");
        }
        Fields.onlyKnown(tensor, TENSOR_FIELDS, field, field + ".");
        JsonNode data = tensor.path("data");
        if (!data.isArray() || data.size() != length) {
            throw BadRequest.field(field, "expected {data: [...]} with " + length + " values, one per input position");
        }
        double[] out = new double[length];
        for (int k = 0; k < length; k++) {
            out[k] = Fields.finite(data.get(k), field + ".data[" + k + "]");
        }
        return out;
    }
}

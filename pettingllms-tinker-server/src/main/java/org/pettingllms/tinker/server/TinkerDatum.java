package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.http.BadRequest;

/**
 * A Tinker datum as {@link TinkerServer} reads it: the input tokens, the targets (the inputs shifted by one), and for
 * training the sampler's logprobs, the completion's first position (the first with a non-zero logprob or advantage:
 * Tinker marks prompt positions by zeros; -1 when there is none) and its one advantage; for forward passes the
 * cross-entropy weights.
 */
record TinkerDatum(int[] tokens, int[] targets, double[] logprobs, double[] weights, int start, double advantage) {
    static List<TinkerDatum> read(JsonNode data, String field, boolean backward) {
        if (!data.isArray() || data.isEmpty()) {
            throw BadRequest.field(field, "expected a non-empty list of datums");
        }
        List<TinkerDatum> out = new ArrayList<>();
        for (int i = 0; i < data.size(); i++) {
            out.add(one(data.get(i), field + "[" + i + "]", backward));
        }
        return out;
    }

    private static TinkerDatum one(JsonNode d, String at, boolean backward) {
        List<Integer> input = new ArrayList<>();
        for (JsonNode chunk : d.path("model_input").path("chunks")) {
            if (!chunk.path("type").asText("encoded_text").equals("encoded_text")) {
                throw BadRequest.field(at + ".model_input", "only encoded_text chunks");
            }
            chunk.path("tokens").forEach(t -> input.add(t.asInt()));
        }
        int[] tokens = input.stream().mapToInt(Integer::intValue).toArray();
        if (tokens.length == 0) {
            throw BadRequest.field(at + ".model_input", "no tokens");
        }
        String inputs = at + ".loss_fn_inputs";
        JsonNode in = d.path("loss_fn_inputs");
        double[] t = numbers(in.path("target_tokens"), inputs + ".target_tokens", tokens.length);
        int[] targets = new int[t.length];
        for (int k = 0; k < t.length; k++) {
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
            return new TinkerDatum(tokens, targets, null, weights, -1, 0);
        }
        double[] logprobs = numbers(in.path("logprobs"), inputs + ".logprobs", tokens.length);
        double[] adv = numbers(in.path("advantages"), inputs + ".advantages", tokens.length);
        int start = -1;
        for (int k = 0; k < adv.length && start < 0; k++) {
            if (adv[k] != 0 || logprobs[k] != 0) {
                start = k;
            }
        }
        double advantage = start < 0 ? 0 : adv[start];
        for (int k = Math.max(0, start); start >= 0 && k < adv.length; k++) {
            if (Math.abs(adv[k] - advantage) > 1e-9 * Math.max(1, Math.abs(advantage))) {
                throw BadRequest.field(
                        inputs + ".advantages",
                        "this server takes one advantage per sequence; position " + k + " differs");
            }
        }
        return new TinkerDatum(tokens, targets, logprobs, null, start, advantage);
    }

    /** A tensor's values, one per input position; sparse tensors are refused. */
    private static double[] numbers(JsonNode tensor, String field, int length) {
        JsonNode data = tensor.path("data");
        if (!data.isArray() || data.size() != length) {
            throw BadRequest.field(field, "expected {data: [...]} with " + length + " values, one per input position");
        }
        if (tensor.has("sparse_crow_indices")) {
            throw BadRequest.field(field, "sparse tensors are not supported");
        }
        double[] out = new double[length];
        for (int k = 0; k < length; k++) {
            out[k] = data.get(k).asDouble();
        }
        return out;
    }
}

package org.pettingllms.tinker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;

/**
 * Training examples as Tinker datums, and the learner's statistics from what the service answers.
 *
 * <p>A datum holds the whole sequence (prompt then completion) shifted by one: {@code model_input = full[:-1]},
 * {@code target_tokens = full[1:]}, so completion token {@code k} is predicted at position {@code P - 1 + k} for a
 * prompt of {@code P} tokens. Prompt positions carry logprob 0 and advantage 0 (Tinker's RL masking: no mask key).
 *
 * <p>Tinker's losses are sums over tokens, where AT-GRPO's is a mean ({@link LossConfig.Aggregation}); the PPO term
 * {@code -min(r A, clip(r) A)} is linear in {@code A > 0} and {@code A < 0} alike, so scaling each token's
 * advantage by its weight in the mean ({@code 1/N} for the token mean over {@code N} tokens; {@code 1/(S L_i)} for the
 * mean over {@code S} sequences of each one's token mean) makes the service's sum the mean, exactly.
 */
final class Datums {
    private Datums() {}

    /** Tinker's PPO datums for {@code batch}, advantages scaled so that the service's sum is the configured mean. */
    static ArrayNode ppo(List<TrainExample> batch, LossConfig loss) {
        batch.forEach(Datums::check);
        long tokens = 0;
        int sequences = 0;
        for (TrainExample e : batch) {
            tokens += e.completionTokens().size();
            sequences += e.completionTokens().size() > 0 ? 1 : 0;
        }
        ArrayNode data = TinkerClient.JSON.createArrayNode();
        for (TrainExample e : batch) {
            int c = e.completionTokens().size();
            double scale = loss.aggregation() == LossConfig.Aggregation.TOKEN_MEAN
                    ? 1.0 / Math.max(1, tokens)
                    : c == 0 ? 0 : 1.0 / ((double) sequences * c);
            float[] logprobs = new float[length(e)];
            double[] advantages = new double[length(e)];
            int first = e.promptTokens().size() - 1;
            for (int k = 0; k < c; k++) {
                logprobs[first + k] = e.oldLogprobs().get(k);
                advantages[first + k] = e.tokenAdvantage(k) * scale;
            }
            ObjectNode d = datum(data.addObject(), e);
            ObjectNode in = (ObjectNode) d.get("loss_fn_inputs");
            floats(in.putObject("logprobs"), logprobs);
            doubles(in.putObject("advantages"), advantages);
        }
        return data;
    }

    /** Cross-entropy datums with zero weights: a forward pass that only reads the logprobs of the targets. */
    static ArrayNode forward(List<TrainExample> batch) {
        batch.forEach(Datums::check);
        ArrayNode data = TinkerClient.JSON.createArrayNode();
        for (TrainExample e : batch) {
            ObjectNode d = datum(data.addObject(), e);
            doubles(((ObjectNode) d.get("loss_fn_inputs")).putObject("weights"), new double[length(e)]);
        }
        return data;
    }

    /** Tinker's PPO clip thresholds are ratio bounds: {@code [1 - eps_low, 1 + eps_high]}. */
    static ObjectNode ppoConfig(LossConfig loss) {
        return TinkerClient.JSON
                .createObjectNode()
                .put("clip_low_threshold", 1 - loss.clipLow())
                .put("clip_high_threshold", 1 + loss.clipHigh());
    }

    /** Each example's completion-token logprobs, read from the answer's per-position {@code logprobs}. */
    static List<FloatSeq> completionLogprobs(List<TrainExample> batch, JsonNode output, String op) {
        JsonNode outs = output.path("loss_fn_outputs");
        if (!outs.isArray() || outs.size() != batch.size()) {
            throw new TinkerException(
                    op + ": expected " + batch.size() + " loss_fn_outputs, got " + (outs.isArray() ? outs.size() : 0),
                    200);
        }
        List<FloatSeq> out = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            TrainExample e = batch.get(i);
            JsonNode lp = outs.get(i).path("logprobs").path("data");
            if (!lp.isArray() || lp.size() != length(e)) {
                throw new TinkerException(
                        op + ": loss_fn_outputs[" + i + "].logprobs has " + lp.size() + " values for a sequence of "
                                + length(e) + " positions",
                        200);
            }
            int first = e.promptTokens().size() - 1;
            float[] k = new float[e.completionTokens().size()];
            for (int j = 0; j < k.length; j++) {
                k[j] = (float) lp.get(first + j).asDouble();
            }
            out.add(FloatSeq.of(k));
        }
        return out;
    }

    /**
     * The learner's statistics, computed as the embedded learner computes them (AT-GRPO.md's PPO-clip loss) from the
     * logprobs the service's forward pass saw: the aggregated loss, the share of tokens where clipping acted, the
     * mean absolute shift from the sampling logprobs; no KL or entropy terms.
     */
    static Learner.LossStats stats(List<TrainExample> batch, List<FloatSeq> now, LossConfig loss) {
        long tokens = 0;
        double clipped = 0;
        double shift = 0;
        double tokenSum = 0;
        double sequenceSum = 0;
        int sequences = 0;
        for (int i = 0; i < batch.size(); i++) {
            TrainExample e = batch.get(i);
            double seq = 0;
            int c = e.completionTokens().size();
            for (int k = 0; k < c; k++) {
                double a = e.tokenAdvantage(k);
                double diff = now.get(i).get(k) - e.oldLogprobs().get(k);
                double r = Math.exp(diff);
                double unclipped = -a * r;
                double clip = -a * Math.min(Math.max(r, 1 - loss.clipLow()), 1 + loss.clipHigh());
                double tok = Math.max(unclipped, clip);
                clipped += clip > unclipped ? 1 : 0;
                shift += Math.abs(diff);
                seq += tok;
            }
            tokens += c;
            tokenSum += seq;
            if (c > 0) {
                sequenceSum += seq / c;
                sequences++;
            }
        }
        double n = Math.max(1, tokens);
        double value = loss.aggregation() == LossConfig.Aggregation.TOKEN_MEAN
                ? tokenSum / n
                : sequenceSum / Math.max(1, sequences);
        return new Learner.LossStats(value, clipped / n, 0, 0, shift / n, tokens);
    }

    /** A datum needs a prompt token and at least one position: Tinker has no empty inputs. */
    private static void check(TrainExample e) {
        if (e.promptTokens().size() < 1 || length(e) < 1) {
            throw new IllegalArgumentException(
                    "a Tinker datum needs a prompt token and at least two tokens in all; got "
                            + e.promptTokens().size() + " prompt and "
                            + e.completionTokens().size() + " completion tokens");
        }
    }

    private static int length(TrainExample e) {
        return e.promptTokens().size() + e.completionTokens().size() - 1;
    }

    /** {@code model_input} and {@code target_tokens} of an example's sequence; the caller adds the rest. */
    private static ObjectNode datum(ObjectNode d, TrainExample e) {
        int[] full = new int[e.promptTokens().size() + e.completionTokens().size()];
        System.arraycopy(
                e.promptTokens().toArray(), 0, full, 0, e.promptTokens().size());
        System.arraycopy(
                e.completionTokens().toArray(),
                0,
                full,
                e.promptTokens().size(),
                e.completionTokens().size());
        ArrayNode tokens = d.putObject("model_input")
                .putArray("chunks")
                .addObject()
                .put("type", "encoded_text")
                .putArray("tokens");
        for (int i = 0; i < full.length - 1; i++) {
            tokens.add(full[i]);
        }
        ObjectNode target = d.putObject("loss_fn_inputs").putObject("target_tokens");
        ArrayNode data = target.putArray("data");
        for (int i = 1; i < full.length; i++) {
            data.add(full[i]);
        }
        target.put("dtype", "int64").putArray("shape").add(full.length - 1);
        return d;
    }

    private static void floats(ObjectNode t, float[] xs) {
        ArrayNode data = t.putArray("data");
        for (float x : xs) {
            data.add(x);
        }
        t.put("dtype", "float32").putArray("shape").add(xs.length);
    }

    private static void doubles(ObjectNode t, double[] xs) {
        ArrayNode data = t.putArray("data");
        for (double x : xs) {
            data.add(x);
        }
        t.put("dtype", "float32").putArray("shape").add(xs.length);
    }
}

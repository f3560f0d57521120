package org.pettingllms.torch.sampling;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Picks the next token from one row of logits: greedy at temperature 0, else temperature, top-k, then top-p
 * (nucleus). The returned logprob is that of the chosen token under the model's distribution at temperature 1
 * (no truncation): the quantity the PPO ratio needs.
 */
public final class TokenSampler {
    private TokenSampler() {
    }

    /** The chosen token and its logprob at temperature 1. */
    public record Pick(int token, float logprob) {
    }

    public static Pick pick(float[] logits, double temperature, int topK, double topP, SplittableRandom rng) {
        double max = Double.NEGATIVE_INFINITY;
        int argmax = 0;
        for (int i = 0; i < logits.length; i++) {
            if (logits[i] > max) {
                max = logits[i];
                argmax = i;
            }
        }
        double sum = 0;
        for (float l : logits) {
            sum += Math.exp(l - max);
        }
        double lse = max + Math.log(sum);
        int token = temperature == 0 ? argmax : sample(logits, temperature, topK, topP, rng);
        return new Pick(token, (float) (logits[token] - lse));
    }

    private static int sample(float[] logits, double temperature, int topK, double topP, SplittableRandom rng) {
        int v = logits.length;
        Integer[] order = new Integer[v];
        for (int i = 0; i < v; i++) {
            order[i] = i;
        }
        // descending by logit, ties by index: a stable, deterministic order
        Arrays.sort(order, (a, b) -> logits[a] != logits[b] ? Float.compare(logits[b], logits[a]) : Integer.compare(a, b));
        int keep = topK > 0 ? Math.min(topK, v) : v;
        double[] p = new double[keep];
        double top = logits[order[0]] / temperature;
        double z = 0;
        for (int i = 0; i < keep; i++) {
            p[i] = Math.exp(logits[order[i]] / temperature - top);
            z += p[i];
        }
        if (topP < 1.0) {
            double cum = 0;
            int cut = keep;
            for (int i = 0; i < keep; i++) {
                cum += p[i] / z;
                if (cum >= topP) {
                    cut = i + 1;
                    break;
                }
            }
            keep = cut;
            z = 0;
            for (int i = 0; i < keep; i++) {
                z += p[i];
            }
        }
        double u = rng.nextDouble() * z;
        for (int i = 0; i < keep; i++) {
            u -= p[i];
            if (u <= 0) {
                return order[i];
            }
        }
        return order[keep - 1];
    }
}

package org.pettingllms.torch.sampling;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Picks the next token from one row of logits: greedy at temperature 0, else temperature, top-k, then top-p
 * (nucleus). The returned logprob is that of the chosen token under the model's distribution at temperature 1
 * (no truncation): the quantity the PPO ratio needs.
 */
public final class TokenSampler {
    private TokenSampler() {}

    /** The chosen token and its logprob at temperature 1. */
    public record Pick(int token, float logprob) {}

    /**
     * The fast path used by the generator, with the distributions computed on the device: {@code logp} the
     * temperature-1 log-probabilities, {@code probs} the softmax at the sampling temperature (ignored when
     * greedy).
     */
    public static Pick pick(float[] logp, float[] probs, boolean greedy, int topK, double topP, SplittableRandom rng) {
        int token;
        if (greedy) {
            token = 0;
            for (int i = 1; i < logp.length; i++) {
                if (logp[i] > logp[token]) {
                    token = i;
                }
            }
        } else if (topK <= 0 && topP >= 1.0) {
            // the same draw as below over the untruncated distribution, read in place (it runs per row per step)
            double z = 0;
            for (float p : probs) {
                z += p;
            }
            double u = rng.nextDouble() * z;
            token = probs.length - 1;
            for (int i = 0; i < probs.length; i++) {
                u -= probs[i];
                if (u <= 0) {
                    token = i;
                    break;
                }
            }
        } else {
            int[] order = descending(probs);
            int keep = topK > 0 ? Math.min(topK, probs.length) : probs.length;
            double[] p = new double[keep];
            double z = 0;
            for (int i = 0; i < keep; i++) {
                p[i] = probs[order[i]];
                z += p[i];
            }
            token = draw(p, nucleus(p, keep, z, topP), -1, rng, order);
        }
        return new Pick(token, logp[token]);
    }

    /** How many of the (descending) probabilities {@code p} the nucleus {@code topP} keeps. */
    private static int nucleus(double[] p, int keep, double z, double topP) {
        if (topP >= 1.0) {
            return keep;
        }
        double cum = 0;
        for (int i = 0; i < keep; i++) {
            cum += p[i] / z;
            if (cum >= topP) {
                return i + 1;
            }
        }
        return keep;
    }

    /** Reference path from raw logits (host-side softmax); same semantics as the fast path. */
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
        if (topK <= 0 && topP >= 1.0) {
            // plain sampling: no ordering needed, one pass over the vocabulary
            double top = Double.NEGATIVE_INFINITY;
            for (float l : logits) {
                top = Math.max(top, l / temperature);
            }
            double[] p = new double[v];
            double z = 0;
            for (int i = 0; i < v; i++) {
                p[i] = Math.exp(logits[i] / temperature - top);
                z += p[i];
            }
            return draw(p, v, z, rng, null);
        }
        int[] order = descending(logits);
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
            for (int i = 0; i < keep; i++) {
                cum += p[i] / z;
                if (cum >= topP) {
                    keep = i + 1;
                    break;
                }
            }
            z = 0;
            for (int i = 0; i < keep; i++) {
                z += p[i];
            }
        }
        return draw(p, keep, z, rng, order);
    }

    /** Index i with probability p[i] / z among the first {@code n}; mapped through {@code order} when given. */
    private static int draw(double[] p, int n, double z, SplittableRandom rng, int[] order) {
        if (z < 0) {
            z = 0;
            for (int i = 0; i < n; i++) {
                z += p[i];
            }
        }
        double u = rng.nextDouble() * z;
        int pick = n - 1;
        for (int i = 0; i < n; i++) {
            u -= p[i];
            if (u <= 0) {
                pick = i;
                break;
            }
        }
        return order == null ? pick : order[pick];
    }

    /**
     * Token ids by descending logit, ties by ascending id: a primitive sort of keys that pack the logit's
     * order-preserving bits above the id.
     */
    static int[] descending(float[] logits) {
        long[] keys = new long[logits.length];
        for (int i = 0; i < logits.length; i++) {
            int bits = Float.floatToIntBits(-logits[i]);
            int ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF); // float order as signed int order
            keys[i] = ((long) ordered << 32) | i;
        }
        Arrays.sort(keys);
        int[] out = new int[logits.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) keys[i];
        }
        return out;
    }
}

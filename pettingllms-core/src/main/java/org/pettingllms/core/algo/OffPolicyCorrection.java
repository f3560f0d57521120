package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;

/**
 * The loss's correction for samples drawn on older weights (asynchronous training). Three policies meet: the
 * behaviour policy {@code pi_behav} that sampled (its logprobs are the examples' old logprobs), the proximal policy
 * {@code pi_prox} (the weights before this step's update: {@code proxLogprobs}, one forward pass) and the policy being
 * optimised {@code pi_theta}.
 * <pre>
 *   decoupled (AReaL, Fu et al. 2025: the decoupled PPO objective):
 *     w_t = pi_prox(y_t) / pi_behav(y_t),   r_t = pi_theta(y_t) / pi_prox(y_t)
 *     L_t = -w_t * min(r_t A, clip(r_t, 1 - eps_low, 1 + eps_high) A)
 *     tokens with w_t > weightCap are dropped (w_t = 0)
 *   mask (prime-rl's rule):
 *     r_t = pi_theta(y_t) / pi_behav(y_t)  (plain PPO), and a token is dropped when its probability moved more than
 *     delta since sampling in the direction its advantage pushes:
 *     A > 0 and pi_prox - pi_behav > delta, or A < 0 and pi_behav - pi_prox > delta
 * </pre>
 * Both become examples with old logprobs (the ratio's denominator) and token weights (the advantage's scale per token,
 * {@link TrainExample#tokenWeights}), which every learner takes as they are. Decoupled PPO is the default: its clip
 * trust region sits around the weights the update starts from, however old the samples, and its weight makes the
 * gradient an unbiased estimate under {@code pi_prox}; the mask rule needs no weight but leaves the ratio
 * centred on the sampling weights, where a stale token's ratio may start outside the clip range and get no gradient.
 * prime-rl computes its mask inside the loss without a forward pass; here it reads the same proximal forward pass, so
 * it costs what decoupled PPO costs.
 */
public final class OffPolicyCorrection {
    private OffPolicyCorrection() {}

    /** Which correction: decoupled PPO, the mask rule, or none (plain PPO on stale samples). */
    public enum Kind {
        DECOUPLED,
        MASK,
        NONE
    }

    /**
     * @param weightCap     decoupled: tokens whose {@code pi_prox / pi_behav} exceeds it are dropped; 0: no cap
     * @param maskThreshold mask: the probability change beyond which a token is dropped
     */
    public record Settings(Kind kind, double weightCap, double maskThreshold) {}

    /**
     * What a correction did, as sums that add up over batches ({@link #plus}).
     *
     * @param tokens    completion tokens
     * @param dropped   tokens given weight 0 (over the cap, or masked)
     * @param weightSum the weights of the tokens kept, summed
     * @param lagSum    {@code |log pi_prox - log pi_behav|} summed over the tokens: how far the policy moved since
     *                  sampling
     */
    public record Stats(long tokens, long dropped, double weightSum, double lagSum) {
        public static final Stats NONE = new Stats(0, 0, 0, 0);

        public Stats plus(Stats o) {
            return new Stats(tokens + o.tokens, dropped + o.dropped, weightSum + o.weightSum, lagSum + o.lagSum);
        }

        public double droppedFraction() {
            return tokens == 0 ? 0 : dropped / (double) tokens;
        }

        /** Mean weight of the tokens kept; 1 when none is (nothing was weighed). */
        public double meanWeight() {
            return tokens == dropped ? 1 : weightSum / (tokens - dropped);
        }

        /** Token mean of {@code |log pi_prox - log pi_behav|}. */
        public double lag() {
            return tokens == 0 ? 0 : lagSum / tokens;
        }
    }

    /** The corrected batch and its statistics. */
    public record Result(List<TrainExample> examples, Stats stats) {}

    /**
     * @param batch        examples whose old logprobs are the behaviour policy's (as sampled)
     * @param proxLogprobs each example's completion logprobs under the weights before this update
     */
    public static Result apply(List<TrainExample> batch, List<FloatSeq> proxLogprobs, Settings cfg) {
        if (proxLogprobs.size() != batch.size()) {
            throw new IllegalArgumentException("one proximal logprob row per example expected: " + batch.size()
                    + " examples, " + proxLogprobs.size() + " rows");
        }
        List<TrainExample> out = new ArrayList<>(batch.size());
        long tokens = 0;
        long dropped = 0;
        double weightSum = 0;
        double lag = 0;
        for (int i = 0; i < batch.size(); i++) {
            TrainExample e = batch.get(i);
            FloatSeq prox = proxLogprobs.get(i);
            int c = e.completionTokens().size();
            if (prox.size() != c) {
                throw new IllegalArgumentException(
                        "example " + i + ": " + c + " completion tokens, " + prox.size() + " proximal logprobs");
            }
            float[] w = new float[c];
            for (int t = 0; t < c; t++) {
                double behav = e.oldLogprobs().get(t);
                double p = prox.get(t);
                lag += Math.abs(p - behav);
                w[t] = (float)
                        switch (cfg.kind()) {
                            case DECOUPLED -> decoupledWeight(p, behav, cfg.weightCap());
                            case MASK -> masked(e.advantage(), p, behav, cfg.maskThreshold()) ? 0 : 1;
                            case NONE -> 1;
                        };
                if (w[t] == 0) {
                    dropped++;
                } else {
                    weightSum += w[t];
                }
            }
            tokens += c;
            out.add(
                    switch (cfg.kind()) {
                        case DECOUPLED -> e.corrected(prox, FloatSeq.of(w));
                        case MASK -> e.corrected(e.oldLogprobs(), FloatSeq.of(w));
                        case NONE -> e;
                    });
        }
        return new Result(out, new Stats(tokens, dropped, weightSum, lag));
    }

    /** {@code pi_prox / pi_behav}, or 0 above a cap {@code > 0}. */
    public static double decoupledWeight(double proxLogprob, double behavLogprob, double cap) {
        double w = Math.exp(proxLogprob - behavLogprob);
        return cap > 0 && w > cap ? 0 : w;
    }

    /** Whether the token's probability moved more than {@code delta} the way its advantage pushes. */
    public static boolean masked(double advantage, double proxLogprob, double behavLogprob, double delta) {
        double moved = Math.exp(proxLogprob) - Math.exp(behavLogprob);
        return (advantage > 0 && moved > delta) || (advantage < 0 && -moved > delta);
    }
}

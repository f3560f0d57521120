package org.pettingllms.core.algo;

import org.pettingllms.core.backend.LossConfig;

/**
 * Scalar reference of the AT-GRPO policy loss, for checking engines and for documentation. Engines compute the
 * same formulas on tensors.
 * <pre>
 *   rho   = exp(logp - logp_old)
 *   L_tok = max(-A * rho, -A * clip(rho, 1 - eps_low, 1 + eps_high))
 *   k3    = exp(ref - logp) - (ref - logp) - 1          (KL estimate to a frozen reference)
 * </pre>
 */
public final class PolicyLoss {
    private PolicyLoss() {}

    public static double tokenLoss(double advantage, double logp, double oldLogp, LossConfig cfg) {
        double rho = Math.exp(logp - oldLogp);
        double clipped = Math.min(Math.max(rho, 1 - cfg.clipLow()), 1 + cfg.clipHigh());
        return Math.max(-advantage * rho, -advantage * clipped);
    }

    /** True when the clipped branch is the active one (for the clip-fraction metric). */
    public static boolean isClipped(double advantage, double logp, double oldLogp, LossConfig cfg) {
        double rho = Math.exp(logp - oldLogp);
        return (advantage > 0 && rho > 1 + cfg.clipHigh()) || (advantage < 0 && rho < 1 - cfg.clipLow());
    }

    public static double k3(double logp, double refLogp) {
        double d = refLogp - logp;
        return Math.exp(d) - d - 1;
    }

    /**
     * Aggregates token losses {@code losses[sequence][token]}: the mean over all tokens, or the mean over
     * sequences of each sequence's token mean. Empty sequences count as no tokens (and are skipped by the
     * sequence mean).
     */
    public static double aggregate(double[][] losses, LossConfig.Aggregation aggregation) {
        double total = 0;
        long tokens = 0;
        double seqSum = 0;
        int seqs = 0;
        for (double[] seq : losses) {
            double s = 0;
            for (double v : seq) {
                s += v;
            }
            total += s;
            tokens += seq.length;
            if (seq.length > 0) {
                seqSum += s / seq.length;
                seqs++;
            }
        }
        return switch (aggregation) {
            case TOKEN_MEAN -> tokens == 0 ? 0 : total / tokens;
            case SEQUENCE_MEAN_TOKEN_MEAN -> seqs == 0 ? 0 : seqSum / seqs;
        };
    }
}

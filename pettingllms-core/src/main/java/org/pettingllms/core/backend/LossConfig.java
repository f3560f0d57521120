package org.pettingllms.core.backend;

/**
 * The PPO-clip policy loss of AT-GRPO.md.
 *
 * @param clipLow     eps_low: ratio lower bound 1 - clipLow
 * @param clipHigh    eps_high: ratio upper bound 1 + clipHigh
 * @param aggregation how token losses become one number
 * @param klCoef      weight of the k3 KL estimate to a frozen reference (0 = off)
 * @param entropyCoef weight of the entropy bonus (0 = off)
 */
public record LossConfig(double clipLow, double clipHigh, Aggregation aggregation, double klCoef, double entropyCoef) {
    public enum Aggregation {
        /** mean over all completion tokens of the mini-batch (default) */
        TOKEN_MEAN,
        /** mean over sequences of each sequence's token mean */
        SEQUENCE_MEAN_TOKEN_MEAN
    }

    public static final LossConfig DEFAULT = new LossConfig(0.2, 0.2, Aggregation.TOKEN_MEAN, 0, 0);

    public LossConfig {
        if (clipLow < 0 || clipLow >= 1 || clipHigh < 0) {
            throw new IllegalArgumentException(
                    "clip bounds need 0 <= clipLow < 1 and clipHigh >= 0, got " + clipLow + ", " + clipHigh);
        }
        if (klCoef < 0 || entropyCoef < 0) {
            throw new IllegalArgumentException("klCoef and entropyCoef must be >= 0");
        }
    }
}

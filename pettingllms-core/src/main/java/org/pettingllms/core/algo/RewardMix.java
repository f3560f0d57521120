package org.pettingllms.core.algo;

import org.pettingllms.core.data.RewardParts;

/**
 * Turns reward parts into the scalar that advantages compare. The paper: {@code r = alpha * team + local}
 * (alpha = 1); the process part is off by default.
 */
public record RewardMix(double alpha, double localWeight, double processWeight) {
    public static final RewardMix PAPER = new RewardMix(1.0, 1.0, 0.0);

    public RewardMix {
        if (!Double.isFinite(alpha) || !Double.isFinite(localWeight) || !Double.isFinite(processWeight)) {
            throw new IllegalArgumentException("reward mix weights must be finite");
        }
    }

    public double mix(RewardParts p) {
        return alpha * p.team() + localWeight * p.local() + processWeight * p.process();
    }
}

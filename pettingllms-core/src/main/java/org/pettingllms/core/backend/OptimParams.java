package org.pettingllms.core.backend;

/**
 * What one optimizer step applies (AT-GRPO.md, "Optimisation"): AdamW with decoupled weight decay after clipping
 * the global gradient norm. The training loop owns the schedule and hands each step its parameters, so every
 * learner (embedded or remote) follows the same schedule.
 */
public record OptimParams(
        double learningRate, double beta1, double beta2, double eps, double weightDecay, double maxGradNorm) {
    /** The AdamW moments every run uses unless it says otherwise. */
    public static final double BETA1 = 0.9;

    public static final double BETA2 = 0.999;
    public static final double EPS = 1e-8;

    public OptimParams {
        if (!(learningRate >= 0) || !Double.isFinite(learningRate)) {
            throw new IllegalArgumentException("learning rate must be finite and >= 0, got " + learningRate);
        }
        if (!(beta1 >= 0 && beta1 < 1)
                || !(beta2 >= 0 && beta2 < 1)
                || !(eps > 0)
                || !(weightDecay >= 0)
                || !(maxGradNorm > 0)) {
            throw new IllegalArgumentException("need betas in [0, 1), eps > 0, weightDecay >= 0 and maxGradNorm > 0");
        }
    }

    /** AdamW with the default moments. */
    public static OptimParams adamW(double learningRate, double weightDecay, double maxGradNorm) {
        return new OptimParams(learningRate, BETA1, BETA2, EPS, weightDecay, maxGradNorm);
    }

    public OptimParams withLearningRate(double lr) {
        return new OptimParams(lr, beta1, beta2, eps, weightDecay, maxGradNorm);
    }
}

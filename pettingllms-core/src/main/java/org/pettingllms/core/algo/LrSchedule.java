package org.pettingllms.core.algo;

/**
 * Learning rate per optimizer step (AT-GRPO.md): constant, or linear warmup then cosine decay to
 * {@code minLrRatio * baseLr} over the run's real number of steps. Monotone after warmup: it never alternates
 * between values (reference defect 9).
 */
public record LrSchedule(Kind kind, double baseLr, int warmupSteps, int totalSteps, double minLrRatio) {
    public enum Kind {
        CONSTANT,
        COSINE
    }

    public LrSchedule {
        if (!(baseLr > 0) || !Double.isFinite(baseLr)) {
            throw new IllegalArgumentException("learning rate must be > 0, got " + baseLr);
        }
        if (warmupSteps < 0 || totalSteps < 1 || warmupSteps > totalSteps) {
            throw new IllegalArgumentException("need 0 <= warmupSteps <= totalSteps and totalSteps >= 1, got "
                    + warmupSteps + " and " + totalSteps);
        }
        if (minLrRatio < 0 || minLrRatio > 1) {
            throw new IllegalArgumentException("minLrRatio must be in [0, 1], got " + minLrRatio);
        }
    }

    /** Learning rate of optimizer step {@code step} (0-based). */
    public double lr(int step) {
        if (kind == Kind.CONSTANT) {
            return baseLr;
        }
        if (step < warmupSteps) {
            return baseLr * (step + 1) / warmupSteps;
        }
        int decaySteps = Math.max(1, totalSteps - warmupSteps);
        double progress = Math.min(1.0, (double) (step - warmupSteps) / decaySteps);
        double cosine = 0.5 * (1 + Math.cos(Math.PI * progress));
        return baseLr * (minLrRatio + (1 - minLrRatio) * cosine);
    }
}

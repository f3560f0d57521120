package org.pettingllms.core.config;

import java.util.Objects;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.PromptStyle;

/**
 * How episodes are rolled out.
 *
 * @param mode         tree sampling (AT-GRPO) or K independent trajectories (GRPO baseline, validation)
 * @param k            candidates per decision (tree) or trajectories per problem (parallel)
 * @param greedySelect tree: continue from the best candidate (first on ties); off: from candidate 0
 * @param style        prompt style
 * @param sampling     sampling parameters; the seed is the base of every per-request seed
 * @param mix          reward mix
 * @param concurrency  episodes in flight at once
 * @param lockstep     hold every episode's sampler calls until all episodes in flight wait on one, then sample them
 *                     together in episode order (a repeatable run); off: calls go out as they come (dynamic batching)
 */
public record RolloutConfig(
        Mode mode,
        int k,
        boolean greedySelect,
        PromptStyle style,
        SamplingParams sampling,
        RewardMix mix,
        int concurrency,
        boolean lockstep) {
    public enum Mode {
        TREE,
        PARALLEL
    }

    public RolloutConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(style, "style");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(mix, "mix");
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, got " + k);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, got " + concurrency);
        }
    }

    /** In lockstep. */
    public RolloutConfig(
            Mode mode,
            int k,
            boolean greedySelect,
            PromptStyle style,
            SamplingParams sampling,
            RewardMix mix,
            int concurrency) {
        this(mode, k, greedySelect, style, sampling, mix, concurrency, true);
    }
}

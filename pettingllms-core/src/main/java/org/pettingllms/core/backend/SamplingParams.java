package org.pettingllms.core.backend;

import java.util.List;

/**
 * Generation settings.
 *
 * @param temperature 0 means greedy
 * @param topK        0 disables top-k
 * @param topP        1.0 disables nucleus sampling
 * @param maxTokens   generation budget per completion
 * @param stop        stop strings (not included in the returned text)
 * @param seed        per-request seed: the same seed, prompt and weights give the same completions
 */
public record SamplingParams(double temperature, int topK, double topP, int maxTokens, List<String> stop, long seed) {
    public SamplingParams {
        if (temperature < 0 || !Double.isFinite(temperature)) {
            throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
        }
        if (topK < 0) {
            throw new IllegalArgumentException("topK must be >= 0 (0 = off), got " + topK);
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be >= 1, got " + maxTokens);
        }
        stop = List.copyOf(stop);
    }

    public boolean greedy() {
        return temperature == 0;
    }

    public SamplingParams withSeed(long newSeed) {
        return new SamplingParams(temperature, topK, topP, maxTokens, stop, newSeed);
    }
}

package org.pettingllms.core.backend;

import java.util.SplittableRandom;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * A policy written in code: rule-based agents, scripted opponents, untrained helper roles, test scripts.
 * Turned into a {@link Sampler} by {@link TextPolicySampler}.
 */
@FunctionalInterface
public interface TextPolicy {
    /** One answer; {@code rng} is seeded per request and candidate, so answers are reproducible. */
    String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng);

    /** Answers as {@code right} with probability {@code p}, otherwise as {@code wrong} (a scripted skill level). */
    static TextPolicy mix(TextPolicy right, TextPolicy wrong, double p) {
        if (p < 0 || p > 1) {
            throw new IllegalArgumentException("a probability must be in [0, 1], got " + p);
        }
        return (policy, prompt, rng) ->
                rng.nextDouble() < p ? right.answer(policy, prompt, rng) : wrong.answer(policy, prompt, rng);
    }
}

package org.pettingllms.core.backend;

import java.util.SplittableRandom;
import org.pettingllms.core.data.Prompt;

/**
 * A policy written in code: rule-based agents, scripted opponents, untrained helper roles, test scripts.
 * Turned into a {@link Sampler} by {@link TextPolicySampler}.
 */
@FunctionalInterface
public interface TextPolicy {
    /** One answer; {@code rng} is seeded per request and candidate, so answers are reproducible. */
    String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng);
}

package org.pettingllms.core.backend;

import java.util.List;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * Generates completions. Implementations must be safe to call from many threads at once: the rollout engine
 * calls it from every concurrent episode as if alone, and an engine may merge concurrent calls into batches.
 */
public interface Sampler {
    /** Returns exactly {@code n} completions of {@code prompt} under {@code policy}'s current weights. */
    List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params);
}

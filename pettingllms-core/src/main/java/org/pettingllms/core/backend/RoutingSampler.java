package org.pettingllms.core.backend;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * Sends each policy's requests to its own sampler, the rest to a default one: for example a scripted role beside
 * roles sampled by a model (a learning check that isolates one role's learning).
 */
public record RoutingSampler(Map<PolicyRef, Sampler> routes, Sampler fallback) implements Sampler {
    public RoutingSampler {
        routes = Map.copyOf(routes);
    }

    @Override
    public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
        return routes.getOrDefault(policy, fallback).sample(policy, prompt, n, params);
    }
}

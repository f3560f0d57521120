package org.pettingllms.core.backend;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

    /** Each route's requests together (in their order), the results back in the order asked. */
    @Override
    public List<CompletableFuture<List<Completion>>> sampleTogether(List<Request> requests) {
        Map<Sampler, List<Integer>> byRoute = new LinkedHashMap<>();
        for (int i = 0; i < requests.size(); i++) {
            byRoute.computeIfAbsent(routes.getOrDefault(requests.get(i).policy(), fallback), s -> new ArrayList<>())
                    .add(i);
        }
        List<CompletableFuture<List<Completion>>> out = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            out.add(null);
        }
        byRoute.forEach((sampler, at) -> {
            List<CompletableFuture<List<Completion>>> got =
                    sampler.sampleTogether(at.stream().map(requests::get).toList());
            for (int j = 0; j < at.size(); j++) {
                out.set(at.get(j), got.get(j));
            }
        });
        return out;
    }
}

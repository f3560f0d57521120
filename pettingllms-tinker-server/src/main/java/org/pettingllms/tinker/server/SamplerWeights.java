package org.pettingllms.tinker.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;

/**
 * The sampler weights clients saved ({@code save_weights_for_sampler}), by their {@code tinker://} path: which policy
 * at which version. The engine samples a policy's live adapter, so each policy keeps its latest path only, and a path
 * whose policy later optimizer steps have changed is refused rather than sampled with other weights.
 */
final class SamplerWeights {
    /** Published sampler weights: which policy, at which version. */
    record Published(PolicyRef policy, long version) {}

    private final Map<String, Published> samplers = new ConcurrentHashMap<>();
    /** A policy's live version in the engine (its registry's). */
    private final ToLongFunction<PolicyRef> liveVersion;

    SamplerWeights(ToLongFunction<PolicyRef> liveVersion) {
        this.liveVersion = liveVersion;
    }

    /** Records {@code path} as {@code policy}'s weights at {@code version}, forgetting its earlier paths. */
    void publish(String path, PolicyRef policy, long version) {
        samplers.values().removeIf(w -> w.policy().equals(policy)); // the engine holds the latest only
        samplers.put(path, new Published(policy, version));
    }

    /** The weights {@code path} names (the request's {@code model_path}): a 404 if unknown, a 400 if replaced. */
    Published lookup(String path) {
        Published w = samplers.get(path);
        if (w == null) {
            throw new BadRequest(
                    404, "model_path", "no sampler weights " + path + " (this server keeps each client's latest)");
        }
        if (!live(w)) {
            throw BadRequest.field(
                    "model_path",
                    path + " was replaced by later optimizer steps: this server samples the latest published"
                            + " weights only; save them for sampling again");
        }
        return w;
    }

    /** Whether the engine still holds {@code w}'s version of its policy. */
    boolean live(Published w) {
        return liveVersion.applyAsLong(w.policy()) == w.version();
    }
}

package org.pettingllms.core.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

    /** One call of {@link #sample}. */
    record Request(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {}

    /**
     * Samples {@code requests} together, each result (or failure) in its own future, in their order. An engine that
     * batches runs exactly these requests as its batches, in this order, whatever else is asked of it meanwhile: a
     * batch's make-up then depends on what was asked, not on when, which is what makes a run repeatable (a row's
     * last bits depend on its batch). The default samples each request on its own virtual thread, as concurrent
     * callers would, and returns when all are done.
     */
    default List<CompletableFuture<List<Completion>>> sampleTogether(List<Request> requests) {
        List<CompletableFuture<List<Completion>>> out = new ArrayList<>(requests.size());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Request r : requests) {
                out.add(CompletableFuture.supplyAsync(
                        () -> sample(r.policy(), r.prompt(), r.n(), r.params()), threads));
            }
        }
        return out;
    }
}

package org.pettingllms.core.backend;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;

/**
 * Trains policies. Mirrors the narrow APIs of large-scale training services (forward-backward, optimizer step,
 * publish), so a remote learner can take the place of the embedded one. For an adapter policy (L2) every call
 * touches only that adapter.
 */
public interface Learner {
    /** Accumulates the gradients of the policy loss over {@code batch}; may be called several times per step. */
    LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss);

    /**
     * Accumulates the gradients of the supervised next-token loss (mean negative log-likelihood of the completion
     * tokens) over {@code batch}, for warm-up; the advantages and old logprobs of the examples are ignored.
     */
    default LossStats forwardBackwardSupervised(PolicyRef policy, List<TrainExample> batch) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no supervised loss");
    }

    /**
     * Log-probabilities of each example's completion tokens under the policy's current weights, without gradients
     * (a forward pass): what the sampler's logprobs must equal when it ran on these weights.
     */
    List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch);

    /**
     * Applies the accumulated gradients with {@code params} (clipped; skipped and reported when their norm is not
     * finite). A step that changes the weights moves the policy's weight version.
     */
    OptimStats optimStep(PolicyRef policy, OptimParams params);

    /**
     * Makes the sampler use the policy's latest weights; returns their weight version, the version every sample
     * drawn from them must carry.
     */
    long publish(PolicyRef policy);

    /**
     * Whether {@link #publish} hands the sampler a copy of the weights (written out and loaded by inference servers),
     * so that optimizer steps after it leave what the sampler uses alone. False by default: the sampler reads the
     * learner's live weights (the embedded engine), and asynchronous training then holds each optimizer step until
     * the rollouts on the weights it would change are done.
     */
    default boolean publishesCopies() {
        return false;
    }

    void save(PolicyRef policy, Path dir) throws IOException;

    void load(PolicyRef policy, Path dir) throws IOException;

    /**
     * What one forward-backward measured.
     *
     * @param logprobShift token mean of {@code |log pi_theta - log pi_old|}: how far the current weights have moved
     *                     from the ones that sampled the batch. On a step's first mini-batch it must be ~0 (the
     *                     learner recomputes what the sampler reported); later it measures the update's size.
     */
    record LossStats(double loss, double clipFraction, double kl, double entropy, double logprobShift, long tokens) {}

    /** What one optimizer step did. */
    record OptimStats(double gradNorm, double learningRate, boolean skipped) {}
}

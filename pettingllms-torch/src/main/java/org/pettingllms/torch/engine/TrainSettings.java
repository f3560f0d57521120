package org.pettingllms.torch.engine;

/**
 * How the embedded learner computes gradients (the optimizer's parameters come with each step: {@link
 * org.pettingllms.core.backend.OptimParams}).
 *
 * @param microBatchSize rows per forward-backward; gradients accumulate over a call's micro-batches
 * @param klReference    keep a frozen copy of fully fine-tuned weights as the KL reference (needed when the loss has
 *                       a KL term; adapter policies use their base model and need no copy)
 * @param sharePrompts   examples with the same prompt (a tree group's K candidates) run the prompt forward and
 *                       backward once per micro-batch; the gradients equal the unshared computation
 * @param trainVisionTower a vision-language model's tower is updated with the language model where a policy is
 *                       fully fine-tuned ({@code engine.trainVisionTower}); otherwise it stays frozen
 * @param threads        PyTorch intra-op threads of a thread of the learner's own, on which every call runs; 0: each
 *                       call runs on its caller's thread, with that thread's count ({@code engine.learnerThreads})
 */
public record TrainSettings(
        int microBatchSize, boolean klReference, boolean sharePrompts, boolean trainVisionTower, int threads) {
    public TrainSettings {
        if (microBatchSize < 1) {
            throw new IllegalArgumentException("need microBatchSize >= 1");
        }
        if (threads < 0) {
            throw new IllegalArgumentException("need threads >= 0");
        }
    }

    /** Prompts shared, the vision tower frozen. */
    public TrainSettings(int microBatchSize, boolean klReference) {
        this(microBatchSize, klReference, true, false, 0);
    }

    /** The vision tower frozen. */
    public TrainSettings(int microBatchSize, boolean klReference, boolean sharePrompts) {
        this(microBatchSize, klReference, sharePrompts, false, 0);
    }

    /** On the caller's thread. */
    public TrainSettings(int microBatchSize, boolean klReference, boolean sharePrompts, boolean trainVisionTower) {
        this(microBatchSize, klReference, sharePrompts, trainVisionTower, 0);
    }
}

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
 */
public record TrainSettings(int microBatchSize, boolean klReference, boolean sharePrompts, boolean trainVisionTower) {
    public TrainSettings {
        if (microBatchSize < 1) {
            throw new IllegalArgumentException("need microBatchSize >= 1");
        }
    }

    /** Prompts shared, the vision tower frozen. */
    public TrainSettings(int microBatchSize, boolean klReference) {
        this(microBatchSize, klReference, true, false);
    }

    /** The vision tower frozen. */
    public TrainSettings(int microBatchSize, boolean klReference, boolean sharePrompts) {
        this(microBatchSize, klReference, sharePrompts, false);
    }
}

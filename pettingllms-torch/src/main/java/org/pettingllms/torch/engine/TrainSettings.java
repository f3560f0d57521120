package org.pettingllms.torch.engine;

import org.pettingllms.core.algo.LrSchedule;
import org.pettingllms.torch.train.AdamW;

/**
 * Optimisation settings of the embedded learner.
 *
 * @param maxGradNorm    global gradient-norm clip (AT-GRPO.md: 1.0)
 * @param microBatchSize rows per forward-backward; gradients accumulate over a call's micro-batches
 * @param klReference    keep a frozen copy of fully fine-tuned weights as the KL reference (needed when the loss has
 *                       a KL term; adapter policies use their base model and need no copy)
 */
public record TrainSettings(LrSchedule lr, AdamW.Config adam, double maxGradNorm, int microBatchSize,
                            boolean klReference) {
    public TrainSettings {
        if (!(maxGradNorm > 0) || microBatchSize < 1) {
            throw new IllegalArgumentException("need maxGradNorm > 0 and microBatchSize >= 1");
        }
    }
}

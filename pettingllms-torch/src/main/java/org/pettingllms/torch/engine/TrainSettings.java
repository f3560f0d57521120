package org.pettingllms.torch.engine;

import org.pettingllms.core.algo.LrSchedule;
import org.pettingllms.torch.train.AdamW;

/**
 * Optimisation settings of the embedded learner.
 *
 * @param maxGradNorm    global gradient-norm clip (AT-GRPO.md: 1.0)
 * @param microBatchSize rows per forward-backward; gradients accumulate over a call's micro-batches
 */
public record TrainSettings(LrSchedule lr, AdamW.Config adam, double maxGradNorm, int microBatchSize) {
    public TrainSettings {
        if (!(maxGradNorm > 0) || microBatchSize < 1) {
            throw new IllegalArgumentException("need maxGradNorm > 0 and microBatchSize >= 1");
        }
    }
}

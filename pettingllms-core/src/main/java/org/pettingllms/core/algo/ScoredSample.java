package org.pettingllms.core.algo;

import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Sample;

/**
 * A sample with its GRPO advantage; every completion token of the sample gets this advantage times the sample's
 * weight (PPO-clip's loss is linear in a positive scale of the advantage, so this weighs the sample's loss).
 */
public record ScoredSample(Sample sample, double advantage) {
    public TrainExample toTrainExample() {
        return new TrainExample(
                sample.promptTokens(),
                sample.completionTokens(),
                sample.samplingLogprobs(),
                advantage * sample.weight(),
                sample.prompt().images());
    }
}

package org.pettingllms.core.algo;

import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Sample;

/** A sample with its GRPO advantage; every completion token of the sample gets this advantage. */
public record ScoredSample(Sample sample, double advantage) {
    public TrainExample toTrainExample() {
        return new TrainExample(
                sample.promptTokens(),
                sample.completionTokens(),
                sample.samplingLogprobs(),
                advantage,
                sample.prompt().images());
    }
}

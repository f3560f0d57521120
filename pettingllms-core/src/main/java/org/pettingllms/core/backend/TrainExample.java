package org.pettingllms.core.backend;

import java.util.List;
import java.util.Objects;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;

/**
 * One (prompt, completion) row for a policy update; every completion token gets the same advantage.
 *
 * @param oldLogprobs the logprobs recorded at sampling time (the PPO ratio's denominator)
 * @param images      the prompt's images in order (its tokens hold each one's placeholders): the learner
 *                    recomputes the logprobs from the same pixels; empty for text
 */
public record TrainExample(
        IntSeq promptTokens, IntSeq completionTokens, FloatSeq oldLogprobs, double advantage, List<Image> images) {
    /** A text-only example. */
    public TrainExample(IntSeq promptTokens, IntSeq completionTokens, FloatSeq oldLogprobs, double advantage) {
        this(promptTokens, completionTokens, oldLogprobs, advantage, List.of());
    }

    public TrainExample {
        images = List.copyOf(images);
        Objects.requireNonNull(promptTokens, "promptTokens");
        Objects.requireNonNull(completionTokens, "completionTokens");
        Objects.requireNonNull(oldLogprobs, "oldLogprobs");
        if (completionTokens.size() != oldLogprobs.size()) {
            throw new IllegalArgumentException("one old logprob per completion token expected: "
                    + completionTokens.size() + " tokens, " + oldLogprobs.size() + " logprobs");
        }
        if (!Double.isFinite(advantage)) {
            throw new IllegalArgumentException("advantage must be finite, got " + advantage);
        }
    }
}

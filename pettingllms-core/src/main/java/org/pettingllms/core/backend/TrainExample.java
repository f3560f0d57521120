package org.pettingllms.core.backend;

import java.util.List;
import java.util.Objects;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;

/**
 * One (prompt, completion) row for a policy update; completion token t gets the advantage {@code advantage x
 * tokenWeights[t]} (every token the same advantage when there are no token weights).
 *
 * @param oldLogprobs  the PPO ratio's denominator: the logprobs recorded at sampling time, or, for samples drawn
 *                     on older weights, the proximal policy's (decoupled PPO, {@code OffPolicyCorrection})
 * @param images       the prompt's images in order (its tokens hold each one's placeholders): the learner
 *                     recomputes the logprobs from the same pixels; empty for text
 * @param tokenWeights one finite weight per completion token that scales its advantage (the behaviour importance
 *                     weight {@code pi_prox / pi_behav} of asynchronous training, 0 for a token the correction
 *                     drops); empty: weight 1 for every token. PPO-clip's token loss {@code max(-A r, -A clip(r))} is
 *                     positively homogeneous in A, so for a weight {@code w >= 0} it equals {@code w} times the loss
 *                     at {@code A}: weighting the advantage weighs the token's loss
 */
public record TrainExample(
        IntSeq promptTokens,
        IntSeq completionTokens,
        FloatSeq oldLogprobs,
        double advantage,
        List<Image> images,
        FloatSeq tokenWeights) {
    /** A text-only example. */
    public TrainExample(IntSeq promptTokens, IntSeq completionTokens, FloatSeq oldLogprobs, double advantage) {
        this(promptTokens, completionTokens, oldLogprobs, advantage, List.of(), FloatSeq.empty());
    }

    /** An example whose tokens all get {@code advantage}. */
    public TrainExample(
            IntSeq promptTokens, IntSeq completionTokens, FloatSeq oldLogprobs, double advantage, List<Image> images) {
        this(promptTokens, completionTokens, oldLogprobs, advantage, images, FloatSeq.empty());
    }

    public TrainExample {
        images = List.copyOf(images);
        Objects.requireNonNull(promptTokens, "promptTokens");
        Objects.requireNonNull(completionTokens, "completionTokens");
        Objects.requireNonNull(oldLogprobs, "oldLogprobs");
        Objects.requireNonNull(tokenWeights, "tokenWeights");
        if (completionTokens.size() != oldLogprobs.size()) {
            throw new IllegalArgumentException("one old logprob per completion token expected: "
                    + completionTokens.size() + " tokens, " + oldLogprobs.size() + " logprobs");
        }
        if (tokenWeights.size() != 0 && tokenWeights.size() != completionTokens.size()) {
            throw new IllegalArgumentException("token weights: none, or one per completion token expected: "
                    + completionTokens.size() + " tokens, " + tokenWeights.size() + " weights");
        }
        for (int t = 0; t < tokenWeights.size(); t++) {
            if (!Float.isFinite(tokenWeights.get(t))) {
                throw new IllegalArgumentException("token weight " + t + " must be finite, got " + tokenWeights.get(t));
            }
        }
        if (!Double.isFinite(advantage)) {
            throw new IllegalArgumentException("advantage must be finite, got " + advantage);
        }
    }

    /** The advantage of completion token {@code t}: {@code advantage x tokenWeights[t]}. */
    public double tokenAdvantage(int t) {
        return tokenWeights.size() == 0 ? advantage : advantage * tokenWeights.get(t);
    }

    /** True when every token gets the same advantage. */
    public boolean uniform() {
        return tokenWeights.size() == 0;
    }

    /** This example with other denominators and token weights (the off-policy correction). */
    public TrainExample corrected(FloatSeq newOldLogprobs, FloatSeq weights) {
        return new TrainExample(promptTokens, completionTokens, newOldLogprobs, advantage, images, weights);
    }
}

package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;

/**
 * A two-version example worked by hand: two tokens sampled on version 0 with probabilities 0.5 and 0.25; by the
 * update (version 1, the proximal policy) they have 0.6 and 0.125.
 */
class OffPolicyCorrectionTest {
    static final float LN_HALF = (float) Math.log(0.5);
    static final float LN_QUARTER = (float) Math.log(0.25);
    static final float LN_06 = (float) Math.log(0.6);
    static final float LN_EIGHTH = (float) Math.log(0.125);

    static TrainExample sampled(double advantage) {
        return new TrainExample(IntSeq.of(1, 2), IntSeq.of(3, 4), FloatSeq.of(LN_HALF, LN_QUARTER), advantage);
    }

    static OffPolicyCorrection.Settings async(OffPolicyCorrection.Kind c, double cap, double delta) {
        return new OffPolicyCorrection.Settings(c, cap, delta);
    }

    @Test
    void decoupledPpoTakesTheProximalLogprobsAsTheRatiosDenominatorAndWeighsEachTokenByProxOverBehaviour() {
        OffPolicyCorrection.Result r = OffPolicyCorrection.apply(
                List.of(sampled(2.0)),
                List.of(FloatSeq.of(LN_06, LN_EIGHTH)),
                async(OffPolicyCorrection.Kind.DECOUPLED, 0, 0));
        TrainExample e = r.examples().get(0);
        assertThat(e.oldLogprobs()).isEqualTo(FloatSeq.of(LN_06, LN_EIGHTH));
        // w = 0.6 / 0.5 = 1.2 and 0.125 / 0.25 = 0.5
        assertThat((double) e.tokenWeights().get(0)).isCloseTo(1.2, within(1e-6));
        assertThat((double) e.tokenWeights().get(1)).isCloseTo(0.5, within(1e-6));
        assertThat(e.tokenAdvantage(0)).isCloseTo(2.4, within(1e-6));
        assertThat(e.tokenAdvantage(1)).isCloseTo(1.0, within(1e-6));
        assertThat(r.stats().meanWeight()).isCloseTo(0.85, within(1e-6));
        assertThat(r.stats().droppedFraction()).isZero();
        assertThat(r.stats().lag())
                .as("(ln 1.2 + ln 2) / 2")
                .isCloseTo((Math.log(1.2) + Math.log(2)) / 2, within(1e-6));
        // the token loss at theta with pi_theta = 0.9 for token 0: r = 0.9 / 0.6 = 1.5, clipped to 1.2 with A > 0:
        // L = -w * min(r A, clip(r) A) = -1.2 * 1.2 * 2 = -2.88
        double loss = PolicyLoss.tokenLoss(
                e.tokenAdvantage(0), Math.log(0.9), e.oldLogprobs().get(0), LossConfig.DEFAULT);
        assertThat(loss).isCloseTo(-2.88, within(1e-5));
        // without the correction the ratio to the behaviour policy 0.9 / 0.5 = 1.8 clips at 1.2 too: -1.2 * 2 = -2.4
        assertThat(PolicyLoss.tokenLoss(2.0, Math.log(0.9), LN_HALF, LossConfig.DEFAULT))
                .isCloseTo(-2.4, within(1e-5));
    }

    @Test
    void aTokenWhoseBehaviourWeightExceedsTheCapIsDropped() {
        // 0.6 / 0.5 = 1.2 > 1.1: token 0 dropped; 0.5 kept
        OffPolicyCorrection.Result r = OffPolicyCorrection.apply(
                List.of(sampled(-1.0)),
                List.of(FloatSeq.of(LN_06, LN_EIGHTH)),
                async(OffPolicyCorrection.Kind.DECOUPLED, 1.1, 0));
        assertThat(r.examples().get(0).tokenWeights().get(0)).isZero();
        assertThat((double) r.examples().get(0).tokenWeights().get(1)).isCloseTo(0.5, within(1e-6));
        assertThat(r.stats().droppedFraction()).isEqualTo(0.5);
        assertThat(r.stats().meanWeight()).isCloseTo(0.5, within(1e-6));
    }

    @Test
    void theMaskDropsATokenWhoseProbabilityMovedTooFarTheWayItsAdvantagePushes() {
        // moved: +0.1 and -0.125. With delta 0.1: A > 0 drops a rise above 0.1 (none: 0.1 is not above it);
        // A < 0 drops a fall of more than 0.1 (token 1)
        OffPolicyCorrection.Settings mask = async(OffPolicyCorrection.Kind.MASK, 0, 0.1);
        FloatSeq prox = FloatSeq.of((float) Math.log(0.6001), LN_EIGHTH);
        OffPolicyCorrection.Result up = OffPolicyCorrection.apply(List.of(sampled(1.0)), List.of(prox), mask);
        assertThat(up.examples().get(0).tokenWeights()).isEqualTo(FloatSeq.of(0f, 1f));
        assertThat(up.examples().get(0).oldLogprobs())
                .as("the ratio stays on the sampling logprobs")
                .isEqualTo(FloatSeq.of(LN_HALF, LN_QUARTER));
        OffPolicyCorrection.Result down = OffPolicyCorrection.apply(List.of(sampled(-1.0)), List.of(prox), mask);
        assertThat(down.examples().get(0).tokenWeights()).isEqualTo(FloatSeq.of(1f, 0f));
        OffPolicyCorrection.Result zero = OffPolicyCorrection.apply(List.of(sampled(0.0)), List.of(prox), mask);
        assertThat(zero.examples().get(0).tokenWeights()).isEqualTo(FloatSeq.of(1f, 1f));
        assertThat(OffPolicyCorrection.masked(1.0, Math.log(0.55), LN_HALF, 0.1))
                .isFalse();
    }

    @Test
    void noCorrectionLeavesTheExamplesAsSampled() {
        TrainExample e = sampled(1.0);
        assertThat(OffPolicyCorrection.apply(
                                List.of(e),
                                List.of(FloatSeq.of(LN_06, LN_EIGHTH)),
                                async(OffPolicyCorrection.Kind.NONE, 0, 0))
                        .examples())
                .containsExactly(e);
    }

    @Test
    void rowsThatDoNotMatchAreRefused() {
        assertThatThrownBy(() -> OffPolicyCorrection.apply(
                        List.of(sampled(1.0)),
                        List.of(FloatSeq.of(LN_06)),
                        async(OffPolicyCorrection.Kind.DECOUPLED, 0, 0)))
                .hasMessageContaining("2 completion tokens, 1 proximal logprobs");
    }
}

package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.torch.sampling.TokenSampler;

class TokenSamplerTest {
    // logits ln(0.5), ln(0.3), ln(0.15), ln(0.05): probabilities 0.5, 0.3, 0.15, 0.05
    final float[] logits = {(float) Math.log(0.5), (float) Math.log(0.3), (float) Math.log(0.15), (float) Math.log(0.05)
    };

    int[] histogram(double temperature, int topK, double topP) {
        SplittableRandom rng = new SplittableRandom(1);
        int[] h = new int[4];
        for (int i = 0; i < 40_000; i++) {
            h[TokenSampler.pick(logits, temperature, topK, topP, rng).token()]++;
        }
        return h;
    }

    @Test
    void greedyPicksTheArgmaxAndReportsTheTemperatureOneLogprob() {
        var p = TokenSampler.pick(logits, 0, 0, 1, new SplittableRandom(1));
        assertThat(p.token()).isZero();
        assertThat(p.logprob()).isCloseTo((float) Math.log(0.5), within(1e-6f));
        // the logprob ignores temperature and truncation: it is under the model's own distribution
        var q = TokenSampler.pick(logits, 0.5, 2, 0.6, new SplittableRandom(2));
        assertThat(q.logprob()).isCloseTo(logits[q.token()], within(1e-6f));
    }

    @Test
    void samplingFollowsTheDistributionAndItsTruncations() {
        int[] plain = histogram(1, 0, 1);
        assertThat(plain[0] / 40_000.0).isCloseTo(0.5, within(0.01));
        assertThat(plain[3] / 40_000.0).isCloseTo(0.05, within(0.005));
        int[] top2 = histogram(1, 2, 1); // renormalised 0.5/0.8, 0.3/0.8
        assertThat(top2[2] + top2[3]).isZero();
        assertThat(top2[0] / 40_000.0).isCloseTo(0.625, within(0.01));
        int[] nucleus = histogram(1, 0, 0.75); // 0.5 + 0.3 >= 0.75: the first two
        assertThat(nucleus[2] + nucleus[3]).isZero();
        int[] cold = histogram(0.5, 0, 1); // p^2 = .25, .09, .0225, .0025 (sum .365): 0.25/0.365 = 0.685
        assertThat(cold[0] / 40_000.0).isCloseTo(0.25 / 0.365, within(0.01));
    }

    @Test
    void theDeviceSideFastPathSamplesTheSameDistributions() {
        float[] logp = logits; // already normalised: log of probabilities summing to 1
        float[] probs = {0.5f, 0.3f, 0.15f, 0.05f};
        SplittableRandom rng = new SplittableRandom(4);
        int[] plain = new int[4];
        int[] top2 = new int[4];
        for (int i = 0; i < 40_000; i++) {
            plain[TokenSampler.pick(logp, probs, false, 0, 1.0, rng).token()]++;
            top2[TokenSampler.pick(logp, probs, false, 2, 1.0, rng).token()]++;
        }
        assertThat(plain[1] / 40_000.0).isCloseTo(0.3, within(0.01));
        assertThat(top2[2] + top2[3]).isZero();
        assertThat(top2[1] / 40_000.0).isCloseTo(0.375, within(0.01));
        var greedy = TokenSampler.pick(logp, probs, true, 0, 1.0, rng);
        assertThat(greedy.token()).isZero();
        assertThat(greedy.logprob()).isEqualTo(logp[0]);
    }
}

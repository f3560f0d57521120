package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.LossConfig;

class PolicyLossTest {
    final LossConfig cfg = LossConfig.DEFAULT;
    final double up = Math.log(1.5); // rho = 1.5
    final double down = Math.log(0.5); // rho = 0.5

    @Test
    void clippedSurrogate() {
        // A=+1, rho 1.5: max(-1.5, -1.2) = -1.2 (clipped: no incentive beyond 1+eps)
        assertThat(PolicyLoss.tokenLoss(1, up, 0, cfg)).isCloseTo(-1.2, within(1e-12));
        assertThat(PolicyLoss.isClipped(1, up, 0, cfg)).isTrue();
        // A=-1, rho 1.5: max(1.5, 1.2) = 1.5 (unclipped: the pessimistic branch)
        assertThat(PolicyLoss.tokenLoss(-1, up, 0, cfg)).isCloseTo(1.5, within(1e-12));
        // A=+1, rho 0.5: max(-0.5, -0.8) = -0.5
        assertThat(PolicyLoss.tokenLoss(1, down, 0, cfg)).isCloseTo(-0.5, within(1e-12));
        // A=-1, rho 0.5: max(0.5, 0.8) = 0.8 (clipped)
        assertThat(PolicyLoss.tokenLoss(-1, down, 0, cfg)).isCloseTo(0.8, within(1e-12));
        assertThat(PolicyLoss.isClipped(-1, down, 0, cfg)).isTrue();
        // on-policy: rho = 1, loss = -A
        assertThat(PolicyLoss.tokenLoss(0.7, -2.3, -2.3, cfg)).isCloseTo(-0.7, within(1e-12));
    }

    @Test
    void aggregation() {
        double[][] losses = {{1, 2, 3}, {4}, {}};
        // token mean: 10 / 4 = 2.5; sequence mean of token means: (2 + 4) / 2 = 3
        assertThat(PolicyLoss.aggregate(losses, LossConfig.Aggregation.TOKEN_MEAN))
                .isEqualTo(2.5);
        assertThat(PolicyLoss.aggregate(losses, LossConfig.Aggregation.SEQUENCE_MEAN_TOKEN_MEAN))
                .isEqualTo(3.0);
    }

    @Test
    void k3KlEstimate() {
        // ref - logp = ln 2: 2 - ln 2 - 1 = 0.3068528
        assertThat(PolicyLoss.k3(0, Math.log(2))).isCloseTo(0.3068528, within(1e-7));
        assertThat(PolicyLoss.k3(-1.3, -1.3)).isZero();
    }
}

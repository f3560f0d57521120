package org.pettingllms.torch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModelBenchTest {
    @Test
    void aSlowSpellInOneRoundDoesNotDecideTheSpeedup() {
        // rounds 1-4 ran at 2x; in round 5 the shared half hit a slow spell (1.0 s instead of 0.5 s)
        double[] unshared = {1.0, 1.1, 0.9, 1.0, 1.0};
        double[] shared = {0.5, 0.55, 0.45, 0.5, 1.0};
        assertThat(ModelBench.medianRatio(unshared, shared)).isEqualTo(2.0);
        // nor does a slow spell in an unshared half inflate it
        double[] slowUnshared = {3.0, 1.1, 0.9, 1.0, 1.0};
        assertThat(ModelBench.medianRatio(slowUnshared, shared)).isEqualTo(2.0);
        // a fast spell in one shared half: the fastest of each (0.9 / 0.3) would read 3x
        double[] luckyShared = {0.5, 0.55, 0.45, 0.5, 0.3};
        assertThat(ModelBench.medianRatio(unshared, luckyShared)).isEqualTo(2.0);
    }

    @Test
    void anEvenNumberOfRoundsTakesTheMiddleTwo() {
        assertThat(ModelBench.medianRatio(new double[] {2, 3, 4, 5}, new double[] {1, 1, 1, 1}))
                .isEqualTo(3.5);
    }
}

package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LrScheduleTest {
    @Test
    void warmupThenCosineToTheMinimum() {
        LrSchedule s = new LrSchedule(LrSchedule.Kind.COSINE, 1e-3, 2, 10, 0.1);
        assertThat(s.lr(0)).isCloseTo(0.5e-3, within(1e-15)); // (0+1)/2
        assertThat(s.lr(1)).isCloseTo(1e-3, within(1e-15)); // (1+1)/2
        assertThat(s.lr(2)).isCloseTo(1e-3, within(1e-15)); // progress 0: cos 1
        // progress (6-2)/8 = 0.5: 0.1 + 0.9 * 0.5 = 0.55
        assertThat(s.lr(6)).isCloseTo(0.55e-3, within(1e-15));
        assertThat(s.lr(10)).isCloseTo(0.1e-3, within(1e-15));
        assertThat(s.lr(50)).isCloseTo(0.1e-3, within(1e-15));
    }

    @Test
    void neverAlternatesAfterWarmup() {
        // reference defect 9: the rate flipped between two values every step
        LrSchedule s = new LrSchedule(LrSchedule.Kind.COSINE, 1e-4, 3, 200, 0.0);
        for (int step = 3; step < 200; step++) {
            assertThat(s.lr(step + 1)).isLessThanOrEqualTo(s.lr(step));
        }
        assertThat(s.lr(100)).isLessThan(s.lr(20));
        LrSchedule c = new LrSchedule(LrSchedule.Kind.CONSTANT, 1e-4, 0, 200, 0.0);
        assertThat(c.lr(0)).isEqualTo(c.lr(199)).isEqualTo(1e-4);
    }
}

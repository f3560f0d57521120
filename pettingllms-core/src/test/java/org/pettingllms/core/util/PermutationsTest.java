package org.pettingllms.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The JDK's shuffle draws the same orders as the Fisher-Yates loop every seeded order here was made with. */
class PermutationsTest {
    /** The loop the project used before: i from n-1 down to 1, swap i with nextInt(i + 1). */
    static int[] fisherYates(int n, SplittableRandom rng) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    @Test
    void everySeedGivesTheOrderOfTheHandWrittenLoopAndLeavesTheGeneratorInTheSameState() {
        for (int n : new int[] {0, 1, 2, 3, 9, 64, 1000}) {
            for (long seed = 0; seed < 50; seed++) {
                SplittableRandom a = new SplittableRandom(seed);
                SplittableRandom b = new SplittableRandom(seed);
                assertThat(Permutations.of(n, a)).as("n=%d seed=%d", n, seed).containsExactly(fisherYates(n, b));
                assertThat(a.nextLong()).isEqualTo(b.nextLong());
            }
        }
    }

    @Test
    void aPermutationHoldsEveryIndexOnce() {
        int[] p = Permutations.of(500, new SplittableRandom(7));
        int[] sorted = p.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertThat(sorted[i]).isEqualTo(i);
        }
        assertThat(p).isNotEqualTo(sorted);
    }
}

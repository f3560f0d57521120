package org.pettingllms.envs.sudoku;

import java.util.SplittableRandom;
import org.pettingllms.core.util.Permutations;

/** Random valid solutions: a base pattern shuffled by digit, row, band, column, stack and transposition. */
final class SudokuShuffle {
    private SudokuShuffle() {}

    static char[] randomSolution(int n, SplittableRandom rng) {
        int box = n == 4 ? 2 : 3;
        int[] digits = permutation(n, rng);
        int[] rows = bandPermutation(n, box, rng);
        int[] cols = bandPermutation(n, box, rng);
        boolean transpose = rng.nextBoolean();
        char[] g = new char[n * n];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < n; c++) {
                int rr = rows[r];
                int cc = cols[c];
                int base = ((rr % box) * box + rr / box + cc) % n; // the classic valid pattern
                int cell = transpose ? c * n + r : r * n + c;
                g[cell] = (char) ('1' + digits[base]);
            }
        }
        return g;
    }

    /** A permutation of 0..n-1 that keeps rows inside bands: shuffles bands, then rows within each band. */
    private static int[] bandPermutation(int n, int box, SplittableRandom rng) {
        int[] bands = permutation(box, rng);
        int[] out = new int[n];
        for (int b = 0; b < box; b++) {
            int[] within = permutation(box, rng);
            for (int k = 0; k < box; k++) {
                out[b * box + k] = bands[b] * box + within[k];
            }
        }
        return out;
    }

    /** A random permutation of 0..n-1. */
    static int[] permutation(int n, SplittableRandom rng) {
        return Permutations.of(n, rng);
    }
}

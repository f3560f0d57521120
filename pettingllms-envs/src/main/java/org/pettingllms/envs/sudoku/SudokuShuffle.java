package org.pettingllms.envs.sudoku;

import java.util.SplittableRandom;

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

    /** Fisher-Yates permutation of 0..n-1. */
    static int[] permutation(int n, SplittableRandom rng) {
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
}

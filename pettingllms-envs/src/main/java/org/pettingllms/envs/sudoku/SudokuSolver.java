package org.pettingllms.envs.sudoku;

/** Backtracking solver that counts solutions up to a limit (uniqueness checks) and returns the first. */
final class SudokuSolver {
    private SudokuSolver() {}

    /** The number of solutions of {@code grid} (row-major digits, 0 = empty), stopping at {@code limit}. */
    static int count(int n, char[] grid, int limit) {
        return search(n, grid.clone(), limit, null);
    }

    /** One solution, or null when there is none. */
    static char[] first(int n, char[] grid) {
        char[][] out = new char[1][];
        search(n, grid.clone(), 1, out);
        return out[0];
    }

    private static int search(int n, char[] g, int limit, char[][] out) {
        int cell = -1;
        for (int i = 0; i < g.length; i++) {
            if (g[i] == '0') {
                cell = i;
                break;
            }
        }
        if (cell < 0) {
            if (out != null) {
                out[0] = g.clone();
            }
            return 1;
        }
        int count = 0;
        for (int v = 1; v <= n && count < limit; v++) {
            if (allowed(n, g, cell, v)) {
                g[cell] = (char) ('0' + v);
                count += search(n, g, limit - count, out);
                g[cell] = '0';
            }
        }
        return count;
    }

    static boolean allowed(int n, char[] g, int cell, int v) {
        int box = n == 4 ? 2 : 3;
        int r = cell / n;
        int c = cell % n;
        char ch = (char) ('0' + v);
        for (int k = 0; k < n; k++) {
            int br = (r / box) * box + k / box;
            int bc = (c / box) * box + k % box;
            if (g[r * n + k] == ch || g[k * n + c] == ch || g[br * n + bc] == ch) {
                return false;
            }
        }
        return true;
    }
}

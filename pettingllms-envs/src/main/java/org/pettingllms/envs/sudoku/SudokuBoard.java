package org.pettingllms.envs.sudoku;

/**
 * A Sudoku board of size n (4 or 9) with boxes of {@code sqrt(n) x sqrt(n)}. Cells are row-major chars,
 * {@code 0} for empty.
 *
 * @param clues the given digits; fixed for the whole episode
 * @param grid  the current digits (clues included)
 */
public record SudokuBoard(int n, String clues, String grid) {
    public SudokuBoard {
        if (n != 4 && n != 9) {
            throw new IllegalArgumentException("sudoku size must be 4 or 9, got " + n);
        }
        if (clues.length() != n * n || grid.length() != n * n) {
            throw new IllegalArgumentException("sudoku clues and grid need " + n * n + " cells");
        }
    }

    public int box() {
        return n == 4 ? 2 : 3;
    }

    public int at(int r, int c) {
        return grid.charAt(r * n + c) - '0';
    }

    public int clue(int r, int c) {
        return clues.charAt(r * n + c) - '0';
    }

    public int filled() {
        return (int) grid.chars().filter(ch -> ch != '0').count();
    }

    /**
     * Solved: complete, every row, column and box holds 1..n once, AND every clue is still in place (the
     * reference implementation forgot the last condition).
     */
    public boolean solved() {
        if (filled() != n * n || satisfiedUnits() != 3 * n) {
            return false;
        }
        for (int i = 0; i < n * n; i++) {
            if (clues.charAt(i) != '0' && clues.charAt(i) != grid.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Units (rows, columns, boxes) that hold each of 1..n exactly once. */
    public int satisfiedUnits() {
        int count = 0;
        for (int u = 0; u < 3 * n; u++) {
            if (unitMask(u, true) == (1 << (n + 1)) - 2) {
                count++;
            }
        }
        return count;
    }

    /** True when some unit holds a digit twice. */
    public boolean hasConflict() {
        for (int u = 0; u < 3 * n; u++) {
            if (unitMask(u, false) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Bit mask of the digits in unit {@code u} (rows 0..n-1, columns n..2n-1, boxes 2n..3n-1); -1 on a duplicate.
     * With {@code completeOnly}, a unit with an empty cell gives 0.
     */
    private int unitMask(int u, boolean completeOnly) {
        int mask = 0;
        for (int k = 0; k < n; k++) {
            int r;
            int c;
            if (u < n) {
                r = u;
                c = k;
            } else if (u < 2 * n) {
                r = k;
                c = u - n;
            } else {
                int b = u - 2 * n;
                r = (b / box()) * box() + k / box();
                c = (b % box()) * box() + k % box();
            }
            int v = at(r, c);
            if (v == 0) {
                if (completeOnly) {
                    return 0;
                }
                continue;
            }
            if ((mask & (1 << v)) != 0) {
                return -1;
            }
            mask |= 1 << v;
        }
        return mask;
    }
}

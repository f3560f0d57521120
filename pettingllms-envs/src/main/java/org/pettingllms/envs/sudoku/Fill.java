package org.pettingllms.envs.sudoku;

/** Write {@code value} at ({@code row}, {@code col}), 0-based. Values and coordinates are checked when applied. */
public record Fill(int row, int col, int value) {}

package org.pettingllms.envs.planpath;

/**
 * A Plan-Path board. Cells are row-major indices {@code r * cols + c}.
 *
 * @param walls    one char per cell, {@code #} wall or {@code .} free
 * @param moves    moves executed so far in the episode (valid and invalid)
 * @param reached  the goal was reached; later moves are ignored
 * @param shortest BFS length of the shortest path from {@code start} to {@code goal}
 */
public record PathBoard(
        int rows, int cols, String walls, int start, int goal, int pos, int moves, boolean reached, int shortest) {
    public PathBoard {
        if (walls.length() != rows * cols) {
            throw new IllegalArgumentException("walls has " + walls.length() + " cells, expected " + rows * cols);
        }
    }

    public boolean free(int cell) {
        return walls.charAt(cell) != '#';
    }

    public int row(int cell) {
        return cell / cols;
    }

    public int col(int cell) {
        return cell % cols;
    }
}

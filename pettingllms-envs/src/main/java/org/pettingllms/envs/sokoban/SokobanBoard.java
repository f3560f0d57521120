package org.pettingllms.envs.sokoban;

import java.util.List;

/**
 * A Sokoban board. Cells are row-major indices.
 *
 * @param layout the fixed cells: {@code #} wall, {@code .} goal, space floor
 * @param boxes  box cells, sorted
 * @param moves  moves executed so far (valid and invalid), for the step cap
 * @param done   solved or out of moves; later moves are ignored
 */
public record SokobanBoard(
        int rows, int cols, String layout, int player, List<Integer> boxes, int moves, boolean done) {
    public SokobanBoard {
        if (layout.length() != rows * cols) {
            throw new IllegalArgumentException("layout has " + layout.length() + " cells, expected " + rows * cols);
        }
        boxes = boxes.stream().sorted().toList();
    }

    public boolean wall(int cell) {
        return layout.charAt(cell) == '#';
    }

    public boolean goal(int cell) {
        return layout.charAt(cell) == '.';
    }

    public boolean box(int cell) {
        return boxes.contains(cell);
    }

    public boolean solved() {
        return boxes.stream().allMatch(this::goal);
    }

    /** phi = -sum over boxes of the Manhattan distance to the nearest goal. */
    public double potential() {
        double sum = 0;
        for (int b : boxes) {
            int best = Integer.MAX_VALUE;
            for (int i = 0; i < layout.length(); i++) {
                if (goal(i)) {
                    best = Math.min(best, Math.abs(i / cols - b / cols) + Math.abs(i % cols - b % cols));
                }
            }
            sum += best;
        }
        return -sum;
    }
}

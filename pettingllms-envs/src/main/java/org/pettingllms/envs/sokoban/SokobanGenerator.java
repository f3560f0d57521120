package org.pettingllms.envs.sokoban;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.pettingllms.envs.planning.Grid;
import org.pettingllms.envs.planning.Move;

/**
 * Generates rooms by reverse play, as gym-sokoban does: a random-walk room topology, goals with the boxes on
 * them, then random reverse moves that pull boxes away. Accepted when the boxes end at least
 * {@code minBoxDistance} (summed Manhattan distance to the nearest goals) from being solved and the forward
 * solver finds a solution.
 */
final class SokobanGenerator {
    static final int MAX_TRIES = 2000;
    private static final int REVERSE_STEPS = 120;
    /** Carving masks (3x3, centred on the walker): a cell, a horizontal bar, a vertical bar, two corners. */
    private static final int[][][] MASKS = {
        {{0, 0, 0}, {0, 1, 0}, {0, 0, 0}},
        {{0, 0, 0}, {1, 1, 1}, {0, 0, 0}},
        {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}},
        {{0, 0, 0}, {1, 1, 0}, {0, 1, 0}},
        {{0, 0, 0}, {0, 1, 1}, {0, 1, 0}},
    };

    private SokobanGenerator() {}

    static SokobanBoard generate(SokobanGame.Options o, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
            char[] layout = topology(o, rng);
            List<Integer> floor = new ArrayList<>();
            for (int i = 0; i < layout.length; i++) {
                if (layout[i] == ' ') {
                    floor.add(i);
                }
            }
            if (floor.size() < o.boxes() + 2) {
                continue;
            }
            Collections.shuffle(floor, new Random(rng.nextLong()));
            List<Integer> goals = floor.subList(0, o.boxes());
            for (int g : goals) {
                layout[g] = '.';
            }
            int player = floor.get(o.boxes());
            SokobanBoard solved = new SokobanBoard(o.rows(), o.cols(), new String(layout), player, goals, 0, false);
            SokobanBoard board = reversePlay(solved, rng);
            if (-board.potential() >= o.minBoxDistance()
                    && SokobanSolver.solve(board).isPresent()) {
                return board;
            }
        }
        throw new IllegalStateException("no solvable sokoban room in " + MAX_TRIES + " tries (seed " + seed + ")");
    }

    /** Walls everywhere, then a walker carves floor for {@code topologySteps} steps. */
    private static char[] topology(SokobanGame.Options o, SplittableRandom rng) {
        char[] cells = new char[o.rows() * o.cols()];
        Arrays.fill(cells, '#');
        int r = 1 + rng.nextInt(o.rows() - 2);
        int c = 1 + rng.nextInt(o.cols() - 2);
        Move dir = Move.values()[rng.nextInt(4)];
        for (int s = 0; s < o.topologySteps(); s++) {
            if (rng.nextDouble() < o.changeDirection()) {
                dir = Move.values()[rng.nextInt(4)];
            }
            int[][] mask = MASKS[rng.nextInt(MASKS.length)];
            for (int dr = -1; dr <= 1; dr++) {
                for (int dc = -1; dc <= 1; dc++) {
                    int rr = r + dr;
                    int cc = c + dc;
                    if (mask[dr + 1][dc + 1] == 1 && rr > 0 && rr < o.rows() - 1 && cc > 0 && cc < o.cols() - 1) {
                        cells[rr * o.cols() + cc] = ' ';
                    }
                }
            }
            r = Math.max(1, Math.min(o.rows() - 2, r + dir.dr));
            c = Math.max(1, Math.min(o.cols() - 2, c + dir.dc));
        }
        return cells;
    }

    /** Random reverse moves: the player steps, and pulls a box that was right behind it (probability 0.7). */
    private static SokobanBoard reversePlay(SokobanBoard b, SplittableRandom rng) {
        int player = b.player();
        List<Integer> boxes = new ArrayList<>(b.boxes());
        for (int s = 0; s < REVERSE_STEPS; s++) {
            Move m = Move.values()[rng.nextInt(4)];
            int to = Grid.step(player, m, b.rows(), b.cols());
            if (to < 0 || b.wall(to) || boxes.contains(to)) {
                continue;
            }
            int behind = player - (to - player); // the cell opposite to the move
            int idx = boxes.indexOf(behind);
            if (idx >= 0 && rng.nextDouble() < 0.7) {
                boxes.set(idx, player);
            }
            player = to;
        }
        return new SokobanBoard(b.rows(), b.cols(), b.layout(), player, boxes, 0, false);
    }
}

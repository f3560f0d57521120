package org.pettingllms.envs.planning;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.IntPredicate;

/** Row-major grid helpers shared by the grid games: cell indices, Manhattan distance, BFS. */
public final class Grid {
    private Grid() {}

    public static int manhattan(int a, int b, int cols) {
        return Math.abs(a / cols - b / cols) + Math.abs(a % cols - b % cols);
    }

    /** The neighbour of {@code cell} in direction {@code m}, or -1 when it leaves the grid. */
    public static int step(int cell, Move m, int rows, int cols) {
        int r = cell / cols + m.dr;
        int c = cell % cols + m.dc;
        return r < 0 || r >= rows || c < 0 || c >= cols ? -1 : r * cols + c;
    }

    /** Shortest move list from {@code from} to {@code to} over cells where {@code free} holds; null if none. */
    public static List<Move> shortestPath(int from, int to, int rows, int cols, IntPredicate free) {
        int[] prev = new int[rows * cols];
        Move[] via = new Move[rows * cols];
        Arrays.fill(prev, -2);
        prev[from] = -1;
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(from);
        while (!queue.isEmpty()) {
            int cur = queue.poll();
            if (cur == to) {
                List<Move> path = new ArrayList<>();
                for (int c = to; prev[c] != -1; c = prev[c]) {
                    path.add(via[c]);
                }
                Collections.reverse(path);
                return path;
            }
            for (Move m : Move.values()) {
                int nxt = step(cur, m, rows, cols);
                if (nxt >= 0 && prev[nxt] == -2 && free.test(nxt)) {
                    prev[nxt] = cur;
                    via[nxt] = m;
                    queue.add(nxt);
                }
            }
        }
        return null;
    }

    /** Splits board text into its rows, checking that it is a rectangle. */
    public static List<String> rows(String text) {
        List<String> rows = text.lines().filter(l -> !l.isEmpty()).toList();
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("empty board");
        }
        int cols = rows.get(0).length();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).length() != cols) {
                throw new IllegalArgumentException(
                        "board row " + i + " has " + rows.get(i).length() + " cells, expected " + cols);
            }
        }
        return rows;
    }
}

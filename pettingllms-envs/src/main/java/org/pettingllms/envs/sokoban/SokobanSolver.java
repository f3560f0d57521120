package org.pettingllms.envs.sokoban;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.pettingllms.envs.planning.Grid;
import org.pettingllms.envs.planning.Move;

/** Breadth-first search over (player, boxes): a shortest solution in moves, for small rooms. */
final class SokobanSolver {
    static final int MAX_STATES = 300_000;

    private SokobanSolver() {}

    private record Node(int player, List<Integer> boxes) {}

    static Optional<List<Move>> solve(SokobanBoard start) {
        Node root = new Node(start.player(), start.boxes());
        Map<Node, Node> prev = new HashMap<>();
        Map<Node, Move> via = new HashMap<>();
        prev.put(root, root);
        ArrayDeque<Node> queue = new ArrayDeque<>();
        queue.add(root);
        while (!queue.isEmpty() && prev.size() < MAX_STATES) {
            Node cur = queue.poll();
            SokobanBoard b =
                    new SokobanBoard(start.rows(), start.cols(), start.layout(), cur.player, cur.boxes, 0, false);
            if (b.solved()) {
                List<Move> path = new ArrayList<>();
                for (Node n = cur; n != root; n = prev.get(n)) {
                    path.add(via.get(n));
                }
                Collections.reverse(path);
                return Optional.of(path);
            }
            for (Move m : Move.values()) {
                Node next = push(b, m);
                if (next != null && !prev.containsKey(next)) {
                    prev.put(next, cur);
                    via.put(next, m);
                    queue.add(next);
                }
            }
        }
        return Optional.empty();
    }

    /** The state after move {@code m}, or null when the move is invalid. */
    private static Node push(SokobanBoard b, Move m) {
        int to = Grid.step(b.player(), m, b.rows(), b.cols());
        if (to < 0 || b.wall(to)) {
            return null;
        }
        if (!b.box(to)) {
            return new Node(to, b.boxes());
        }
        int behind = Grid.step(to, m, b.rows(), b.cols());
        if (behind < 0 || b.wall(behind) || b.box(behind)) {
            return null;
        }
        List<Integer> boxes = new ArrayList<>(b.boxes());
        boxes.set(boxes.indexOf(to), behind);
        Collections.sort(boxes);
        return new Node(to, List.copyOf(boxes));
    }
}

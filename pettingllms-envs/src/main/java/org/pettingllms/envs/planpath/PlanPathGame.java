package org.pettingllms.envs.planpath;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.envs.planning.Grid;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.MoveGame;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.Shaping;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * Plan-Path (ENVIRONMENTS.md): walk from the start to the goal on a grid with walls.
 * Per move: -0.01 valid, -0.10 invalid (into a wall or off the grid: the agent stays), plus the shaping
 * {@code phi(next) - phi(cur)} with {@code phi = -Manhattan(pos, goal)} ({@link Shaping}; the reference's
 * {@code 0.99 * phi(next) - phi(cur)} with {@code shaping: reference}); reaching the goal +1.0, and +0.5 more when
 * the episode's total number of moves equals the BFS shortest-path length. Moves after the goal are ignored.
 *
 * <p>With telescoping shaping an answer earns {@code phi(end) - phi(start) - 0.01 * moves - 0.09 * invalid}, plus
 * 1.0 (and 0.5) when it reaches the goal: a shortest successful answer earns the most on every board (up to 149
 * moves), and among successful answers the shorter earns more.
 */
public final class PlanPathGame extends MoveGame<PathBoard> {
    public static final String ID = "plan-path-v1";
    static final int MAX_TRIES = 2000;

    /** @param wallProb probability that a cell is a wall */
    public record Options(int rows, int cols, double wallProb, Shaping shaping) {
        public static final Options DEFAULT = new Options(10, 10, 0.22, Shaping.TELESCOPING);

        public Options(int rows, int cols, double wallProb) {
            this(rows, cols, wallProb, Shaping.TELESCOPING);
        }

        public Options {
            if (rows < 2 || cols < 2 || rows * cols > 10_000) {
                throw new IllegalArgumentException("rows and cols must be >= 2 (and rows * cols <= 10000)");
            }
            if (wallProb < 0 || wallProb >= 0.9) {
                throw new IllegalArgumentException("wallProb must be in [0, 0.9), got " + wallProb);
            }
            if (shaping == null) {
                throw new IllegalArgumentException("shaping must be telescoping or reference");
            }
        }
    }

    private final Options options;

    public PlanPathGame(Options options) {
        this.options = options;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public PathBoard generate(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int rows = options.rows();
        int cols = options.cols();
        for (int attempt = 0; attempt < MAX_TRIES; attempt++) {
            char[] cells = new char[rows * cols];
            List<Integer> free = new ArrayList<>();
            for (int i = 0; i < cells.length; i++) {
                cells[i] = rng.nextDouble() < options.wallProb() ? '#' : '.';
                if (cells[i] == '.') {
                    free.add(i);
                }
            }
            if (free.size() < 2) {
                continue;
            }
            int start = free.get(rng.nextInt(free.size()));
            int goal = free.get(rng.nextInt(free.size()));
            if (start == goal) {
                continue;
            }
            String walls = new String(cells);
            List<Move> path = Grid.shortestPath(start, goal, rows, cols, c -> walls.charAt(c) != '#');
            if (path != null) {
                return new PathBoard(rows, cols, walls, start, goal, start, 0, false, path.size());
            }
        }
        throw new IllegalStateException("no solvable " + rows + "x" + cols + " plan-path board with wallProb "
                + options.wallProb() + " in " + MAX_TRIES + " tries (seed " + seed + ")");
    }

    @Override
    public List<ToolProgram<PathBoard>> toolPrograms() {
        return PlanPathPrograms.catalog();
    }

    @Override
    public List<ToolProgram<PathBoard>> flawedPrograms() {
        return PlanPathPrograms.flawCombinations();
    }

    @Override
    public List<ProgramPlace> flawPlaces() {
        return PlanPathPrograms.flawPlaces();
    }

    @Override
    public String render(PathBoard b) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < b.rows(); r++) {
            if (r > 0) {
                sb.append('\n');
            }
            for (int c = 0; c < b.cols(); c++) {
                int i = r * b.cols() + c;
                sb.append(i == b.pos() ? 'A' : i == b.goal() ? 'G' : b.walls().charAt(i));
            }
        }
        return sb.toString();
    }

    /** Reads {@code #} walls, {@code .} free, {@code A} the agent (start) and {@code G} the goal. */
    @Override
    public PathBoard fromText(String text) {
        List<String> rows = Grid.rows(text);
        int cols = rows.get(0).length();
        StringBuilder walls = new StringBuilder();
        int agent = -1;
        int goal = -1;
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols; c++) {
                char ch = rows.get(r).charAt(c);
                switch (ch) {
                    case 'A' -> agent = r * cols + c;
                    case 'G' -> goal = r * cols + c;
                    case '#', '.' -> {}
                    default ->
                        throw new IllegalArgumentException("unknown plan-path cell '" + ch + "' at row " + r
                                + ", column " + c + "; expected one of # . A G");
                }
                walls.append(ch == '#' ? '#' : '.');
            }
        }
        if (agent < 0 || goal < 0) {
            throw new IllegalArgumentException("a plan-path board needs one A (agent) and one G (goal)");
        }
        String w = walls.toString();
        List<Move> path = Grid.shortestPath(agent, goal, rows.size(), cols, i -> w.charAt(i) != '#');
        return new PathBoard(rows.size(), cols, w, agent, goal, agent, 0, false, path == null ? -1 : path.size());
    }

    @Override
    public Outcome<PathBoard> apply(PathBoard b, List<Move> moves) {
        int pos = b.pos();
        int count = b.moves();
        boolean reached = b.reached();
        double reward = 0;
        int firstInvalid = -1;
        for (int i = 0; i < moves.size() && !reached; i++) {
            int cur = pos;
            int next = Grid.step(cur, moves.get(i), b.rows(), b.cols());
            if (next >= 0 && b.free(next)) {
                pos = next;
                reward -= 0.01;
            } else {
                reward -= 0.10;
                firstInvalid = firstInvalid < 0 ? i + 1 : firstInvalid;
            }
            count++;
            reward += options.shaping().reward(phi(cur, b), phi(pos, b));
            if (pos == b.goal()) {
                reached = true;
                reward += 1.0;
                if (count == b.shortest()) {
                    reward += 0.5;
                }
            }
        }
        PathBoard next =
                new PathBoard(b.rows(), b.cols(), b.walls(), b.start(), b.goal(), pos, count, reached, b.shortest());
        String summary = "end " + b.row(pos) + "," + b.col(pos)
                + (firstInvalid > 0 ? " | invalid #" + firstInvalid : "") + " | goal " + (reached ? "yes" : "no");
        return new Outcome<>(next, reward, firstInvalid > 0, reached, reached, summary);
    }

    private static double phi(int cell, PathBoard b) {
        return -Grid.manhattan(cell, b.goal(), b.cols());
    }

    @Override
    public Optional<List<Move>> solve(PathBoard b) {
        return Optional.ofNullable(Grid.shortestPath(b.pos(), b.goal(), b.rows(), b.cols(), b::free));
    }

    @Override
    protected int span(PathBoard b) {
        return b.rows() + b.cols();
    }

    @Override
    public Map<Character, Integer> colours() {
        // free white, wall near-black, the agent blue, the goal green (docs/ENVIRONMENTS.md)
        return Map.of('.', 0xFFFFFF, '#', 0x303030, 'A', 0x2060E0, 'G', 0x20B040);
    }

    @Override
    public String rules() {
        return "A is you, G is the goal, # is a wall and . is free. Rows are numbered from 0 at the top, columns "
                + "from 0 at the left. A move into a wall or off the grid is invalid and you stay. Reach G, ideally "
                + "by a shortest path.";
    }
}

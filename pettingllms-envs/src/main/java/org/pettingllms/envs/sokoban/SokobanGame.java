package org.pettingllms.envs.sokoban;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.pettingllms.envs.planning.Grid;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.MoveGame;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.Shaping;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * Sokoban (ENVIRONMENTS.md). Per move: -0.01 valid, -0.05 invalid; a box pushed onto a goal +1.0, off a goal
 * -1.0; shaping {@code 0.1 * (phi' - phi)} with phi = -(sum of box distances to the nearest goal); all boxes on
 * goals +10 and done; at the step cap (200 moves) -5 and done. With {@code shaping: reference} the reference's
 * rules: off a goal -0.5 and shaping {@code 0.1 * (0.99 * phi' - phi)}, which pay for pushing a box off a goal and
 * back and for wandering ({@link Shaping}).
 *
 * <p>With the default every term but the move costs telescopes: all successful answers end in the same state, so
 * a successful answer earns a constant minus {@code 0.01 * moves + 0.04 * invalid}, and the shorter earns more.
 */
public final class SokobanGame extends MoveGame<SokobanBoard> {
    public static final String ID = "sokoban-v1";

    public record Options(
            int rows,
            int cols,
            int boxes,
            int topologySteps,
            double changeDirection,
            int minBoxDistance,
            int stepCap,
            Shaping shaping) {
        public static final Options DEFAULT = new Options(6, 6, 1, 25, 0.35, 2, 200, Shaping.TELESCOPING);

        public Options(
                int rows,
                int cols,
                int boxes,
                int topologySteps,
                double changeDirection,
                int minBoxDistance,
                int stepCap) {
            this(rows, cols, boxes, topologySteps, changeDirection, minBoxDistance, stepCap, Shaping.TELESCOPING);
        }

        public Options {
            if (rows < 4 || cols < 4 || rows * cols > 400) {
                throw new IllegalArgumentException("rows and cols must be >= 4 (and rows * cols <= 400)");
            }
            if (boxes < 1 || boxes > 3) {
                throw new IllegalArgumentException("boxes must be in 1..3, got " + boxes);
            }
            if (topologySteps < 1 || changeDirection < 0 || changeDirection > 1 || minBoxDistance < 1 || stepCap < 1) {
                throw new IllegalArgumentException("need topologySteps >= 1, changeDirection in [0, 1], "
                        + "minBoxDistance >= 1 and stepCap >= 1");
            }
            if (shaping == null) {
                throw new IllegalArgumentException("shaping must be telescoping or reference");
            }
        }
    }

    private final Options options;

    public SokobanGame(Options options) {
        this.options = options;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public SokobanBoard generate(long seed) {
        return SokobanGenerator.generate(options, seed);
    }

    @Override
    public String render(SokobanBoard b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.layout().length(); i++) {
            if (i > 0 && i % b.cols() == 0) {
                sb.append('\n');
            }
            boolean goal = b.goal(i);
            sb.append(
                    i == b.player()
                            ? (goal ? '+' : '@')
                            : b.box(i) ? (goal ? '*' : '$') : b.layout().charAt(i));
        }
        return sb.toString();
    }

    /** Reads {@code # . $ @ * +} and space; exactly one player. */
    @Override
    public SokobanBoard fromText(String text) {
        List<String> rows = Grid.rows(text);
        int cols = rows.get(0).length();
        StringBuilder layout = new StringBuilder();
        List<Integer> boxes = new ArrayList<>();
        int player = -1;
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols; c++) {
                char ch = rows.get(r).charAt(c);
                int i = r * cols + c;
                switch (ch) {
                    case '#', ' ', '.' -> layout.append(ch);
                    case '$' -> {
                        layout.append(' ');
                        boxes.add(i);
                    }
                    case '*' -> {
                        layout.append('.');
                        boxes.add(i);
                    }
                    case '@' -> {
                        layout.append(' ');
                        player = i;
                    }
                    case '+' -> {
                        layout.append('.');
                        player = i;
                    }
                    default ->
                        throw new IllegalArgumentException("unknown sokoban cell '" + ch + "' at row " + r + ", column "
                                + c + "; expected one of # . $ @ * + or space");
                }
            }
        }
        if (player < 0) {
            throw new IllegalArgumentException("a sokoban board needs a player (@ or +)");
        }
        return new SokobanBoard(rows.size(), cols, layout.toString(), player, boxes, 0, false);
    }

    @Override
    public Outcome<SokobanBoard> apply(SokobanBoard b, List<Move> moves) {
        int player = b.player();
        List<Integer> boxes = new ArrayList<>(b.boxes());
        int count = b.moves();
        boolean done = b.done();
        boolean success = b.done() && b.solved();
        boolean invalid = false;
        double reward = 0;
        // Telescoping: pushing a box off a goal costs what pushing it on paid, so on-off cycles earn nothing.
        double offGoal = options.shaping() == Shaping.REFERENCE ? 0.5 : 1.0;
        for (int i = 0; i < moves.size() && !done; i++) {
            SokobanBoard cur = new SokobanBoard(b.rows(), b.cols(), b.layout(), player, boxes, count, false);
            double phi = cur.potential();
            Move m = moves.get(i);
            int to = Grid.step(player, m, b.rows(), b.cols());
            int behind = to < 0 ? -1 : Grid.step(to, m, b.rows(), b.cols());
            if (to < 0 || cur.wall(to) || (cur.box(to) && (behind < 0 || cur.wall(behind) || cur.box(behind)))) {
                reward -= 0.05;
                invalid = true;
            } else {
                reward -= 0.01;
                if (cur.box(to)) {
                    boxes.set(boxes.indexOf(to), behind);
                    reward += (cur.goal(behind) ? 1.0 : 0) - (cur.goal(to) ? offGoal : 0);
                }
                player = to;
            }
            count++;
            SokobanBoard next = new SokobanBoard(b.rows(), b.cols(), b.layout(), player, boxes, count, false);
            reward += 0.1 * options.shaping().reward(phi, next.potential());
            if (next.solved()) {
                reward += 10;
                done = true;
                success = true;
            } else if (count >= options.stepCap()) {
                reward -= 5;
                done = true;
            }
        }
        SokobanBoard next = new SokobanBoard(b.rows(), b.cols(), b.layout(), player, boxes, count, done);
        long onGoal = next.boxes().stream().filter(next::goal).count();
        String summary = "boxes on goals " + onGoal + "/" + boxes.size() + (invalid ? " | invalid moves" : "")
                + (success ? " | solved" : done ? " | out of moves" : "");
        return new Outcome<>(next, reward, invalid, done, success, summary);
    }

    @Override
    public Optional<List<Move>> solve(SokobanBoard b) {
        return SokobanSolver.solve(b);
    }

    @Override
    protected int span(SokobanBoard b) {
        return b.rows() + b.cols();
    }

    /** The solver programs a program-writing tool is warmed up on (SokobanPrograms). */
    @Override
    public List<ToolProgram<SokobanBoard>> toolPrograms() {
        return SokobanPrograms.catalog();
    }

    @Override
    public List<ToolProgram<SokobanBoard>> flawedPrograms() {
        return SokobanPrograms.flawCombinations();
    }

    @Override
    public List<ProgramPlace> flawPlaces() {
        return SokobanPrograms.flawPlaces();
    }

    @Override
    public Map<Character, Integer> colours() {
        // floor white, wall near-black, goal yellow, box brown, box on a goal green, player blue, player on a goal
        // purple (docs/ENVIRONMENTS.md)
        return Map.of(
                ' ', 0xFFFFFF, '#', 0x303030, '.', 0xF0C040, '$', 0xA05A20, '*', 0x40A040, '@', 0x2060E0, '+',
                0x8040C0);
    }

    @Override
    public String rules() {
        return "# is a wall, . a goal, $ a box, @ you, * a box on a goal, + you on a goal. Moving into a box pushes "
                + "it if the cell behind it is free; boxes cannot be pulled. Push every box onto a goal.";
    }
}

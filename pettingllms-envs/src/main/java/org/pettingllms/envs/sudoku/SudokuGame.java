package org.pettingllms.envs.sudoku;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.Grid;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * Sudoku (ENVIRONMENTS.md), 4x4 by default. Answers: a full grid ({@code n*n} digits, 0 or . for blanks, rows may be
 * separated by spaces or {@code /}) or a list of 0-based (row, col, value) fills. v2: compact answers and proposals
 * are written as grids (v1 wrote fill lists). Rewards: an invalid fill (value outside 1..n, a cell off the board, or
 * overwriting a clue) -1 each and skipped; progress {@code 0.5 * delta(filled fraction) + 0.02 * delta(satisfied
 * units)}; a grid with a conflict -0.5; solved +2.0 and done.
 */
public final class SudokuGame implements Game<SudokuBoard, List<Fill>> {
    public static final String ID = "sudoku-v2";
    private static final Pattern TRIPLE = Pattern.compile("(-?\\d+)\\s*,\\s*(-?\\d+)\\s*,\\s*(-?\\d+)");

    /** @param clues the target number of clues; more stay when removing one would break uniqueness */
    public record Options(int size, int clues) {
        public static final Options DEFAULT = new Options(4, 6);

        public Options {
            if (size != 4 && size != 9) {
                throw new IllegalArgumentException("size must be 4 or 9, got " + size);
            }
            if (clues < 0 || clues >= size * size) {
                throw new IllegalArgumentException("clues must be in [0, " + (size * size) + "), got " + clues);
            }
        }
    }

    private final Options options;

    public SudokuGame(Options options) {
        this.options = options;
    }

    @Override
    public String id() {
        return ID;
    }

    /**
     * A shuffled valid solution, then cells removed in random order while the solution stays unique, until
     * {@code clues} remain or no further cell can go.
     */
    @Override
    public SudokuBoard generate(long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        int n = options.size();
        char[] solution = SudokuShuffle.randomSolution(n, rng);
        char[] puzzle = solution.clone();
        int[] order = SudokuShuffle.permutation(n * n, rng);
        int clues = n * n;
        for (int cell : order) {
            if (clues <= options.clues()) {
                break;
            }
            char keep = puzzle[cell];
            puzzle[cell] = '0';
            if (SudokuSolver.count(n, puzzle, 2) == 1) {
                clues--;
            } else {
                puzzle[cell] = keep;
            }
        }
        String p = new String(puzzle);
        return new SudokuBoard(n, p, p);
    }

    /**
     * The grid, digits and {@code .} for empty cells; from the second turn on (once cells have been filled) a last
     * line {@code fills: r,c=v ...} (0-based) says which digits are earlier fills, so the rest are the clues.
     */
    @Override
    public String render(SudokuBoard b) {
        StringBuilder sb = new StringBuilder();
        StringBuilder fills = new StringBuilder();
        for (int r = 0; r < b.n(); r++) {
            if (r > 0) {
                sb.append('\n');
            }
            for (int c = 0; c < b.n(); c++) {
                int v = b.at(r, c);
                sb.append(v == 0 ? '.' : (char) ('0' + v));
                if (v != 0 && b.clue(r, c) == 0) {
                    fills.append(fills.isEmpty() ? "" : " ")
                            .append(r)
                            .append(',')
                            .append(c)
                            .append('=')
                            .append(v);
                }
            }
        }
        if (!fills.isEmpty()) {
            sb.append('\n').append(FILLS).append(fills);
        }
        return sb.toString();
    }

    static final String FILLS = "fills: ";

    /**
     * Reads n rows of n digits ({@code .} or 0 empty); the digits become the clues, except those an optional last
     * {@code fills: r,c=v ...} line names, which are earlier fills (what {@link #render} writes).
     */
    @Override
    public SudokuBoard fromText(String text) {
        List<String> lines = text.lines().filter(l -> !l.isEmpty()).toList();
        String fillLine =
                !lines.isEmpty() && lines.get(lines.size() - 1).startsWith(FILLS) ? lines.get(lines.size() - 1) : null;
        List<String> rows = Grid.rows(fillLine == null ? text : String.join("\n", lines.subList(0, lines.size() - 1)));
        int n = rows.size();
        StringBuilder cells = new StringBuilder();
        for (int r = 0; r < n; r++) {
            if (rows.get(r).length() != n) {
                throw new IllegalArgumentException(
                        "sudoku row " + r + " has " + rows.get(r).length() + " cells, expected " + n);
            }
            for (char ch : rows.get(r).toCharArray()) {
                if (ch == '.' || ch == '0') {
                    cells.append('0');
                } else if (ch >= '1' && ch <= '0' + n) {
                    cells.append(ch);
                } else {
                    throw new IllegalArgumentException(
                            "sudoku row " + r + ": unexpected '" + ch + "', expected 1.." + n + " or .");
                }
            }
        }
        StringBuilder clues = new StringBuilder(cells);
        if (fillLine != null) {
            for (String f : fillLine.substring(FILLS.length()).trim().split("\\s+")) {
                Matcher m = Pattern.compile("(\\d+),(\\d+)=(\\d+)").matcher(f);
                if (!m.matches() || Integer.parseInt(m.group(1)) >= n || Integer.parseInt(m.group(2)) >= n) {
                    throw new IllegalArgumentException("sudoku fills line: '" + f + "' is not r,c=v on the board");
                }
                clues.setCharAt(Integer.parseInt(m.group(1)) * n + Integer.parseInt(m.group(2)), '0');
            }
        }
        return new SudokuBoard(n, clues.toString(), cells.toString());
    }

    @Override
    public Optional<List<Fill>> parse(String answer) {
        int marker = answer.lastIndexOf(Move.CHAT_MARKER);
        String body = marker >= 0
                ? answer.substring(marker + Move.CHAT_MARKER.length())
                : answer.strip().lines().findFirst().orElse("");
        if (marker >= 0 || body.indexOf(',') >= 0) {
            return triples(body);
        }
        return grid(body);
    }

    private Optional<List<Fill>> triples(String body) {
        Matcher m = TRIPLE.matcher(body);
        List<Fill> fills = new ArrayList<>();
        while (m.find() && fills.size() <= options.size() * options.size() * 2) {
            try {
                fills.add(new Fill(
                        Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
            } catch (NumberFormatException e) {
                return Optional.empty(); // absurdly long digit runs
            }
        }
        return fills.isEmpty() ? Optional.empty() : Optional.of(fills);
    }

    private Optional<List<Fill>> grid(String body) {
        String cells = body.replaceAll("[\\s|/]", "");
        int n = options.size();
        if (cells.length() != n * n || !cells.matches("[0-9.]+")) {
            return Optional.empty();
        }
        List<Fill> fills = new ArrayList<>();
        for (int i = 0; i < cells.length(); i++) {
            char ch = cells.charAt(i);
            if (ch != '.' && ch != '0') {
                fills.add(new Fill(i / n, i % n, ch - '0'));
            }
        }
        return Optional.of(fills);
    }

    @Override
    public Outcome<SudokuBoard> apply(SudokuBoard b, List<Fill> fills) {
        int n = b.n();
        char[] g = b.grid().toCharArray();
        double reward = 0;
        int invalid = 0;
        for (Fill f : fills) {
            boolean onBoard = f.row() >= 0 && f.row() < n && f.col() >= 0 && f.col() < n;
            if (!onBoard || f.value() < 1 || f.value() > n) {
                invalid++;
                continue;
            }
            int cell = f.row() * n + f.col();
            if (b.clues().charAt(cell) != '0') {
                if (b.clues().charAt(cell) - '0' != f.value()) {
                    invalid++; // overwriting a clue
                }
                continue;
            }
            g[cell] = (char) ('0' + f.value());
        }
        reward -= invalid;
        SudokuBoard next = new SudokuBoard(n, b.clues(), new String(g));
        reward += 0.5 * (next.filled() - b.filled()) / (double) (n * n)
                + 0.02 * (next.satisfiedUnits() - b.satisfiedUnits());
        boolean conflict = next.hasConflict();
        if (conflict) {
            reward -= 0.5;
        }
        boolean solved = next.solved();
        if (solved) {
            reward += 2.0;
        }
        String summary = "filled " + next.filled() + "/" + n * n + (invalid > 0 ? " | invalid fills " + invalid : "")
                + (conflict ? " | conflict" : "") + (solved ? " | solved" : "");
        return new Outcome<>(next, reward, invalid > 0 || conflict, solved, solved, summary);
    }

    /** The fills that complete the board, when the current grid still has a solution. */
    @Override
    public Optional<List<Fill>> solve(SudokuBoard b) {
        char[] sol = SudokuSolver.first(b.n(), b.grid().toCharArray());
        if (sol == null) {
            return Optional.empty();
        }
        List<Fill> fills = new ArrayList<>();
        for (int i = 0; i < sol.length; i++) {
            if (b.grid().charAt(i) == '0') {
                fills.add(new Fill(i / b.n(), i % b.n(), sol[i] - '0'));
            }
        }
        return Optional.of(fills);
    }

    /**
     * Chat: the list of (row, col, value) fills after the marker. Compact: the fills drawn on an empty grid, rows
     * joined by {@code /} and {@code .} where nothing is written (e.g. {@code ..34/..../1.../....}), so each answer
     * character lines up with the prompt's cell; a tiny character-level model learns that far sooner than
     * coordinates. Fills a grid cannot show (off the board, out of range, one cell twice) keep the list form.
     */
    @Override
    public String format(List<Fill> fills, PromptStyle style) {
        if (style == PromptStyle.CHAT) {
            return "**" + Move.CHAT_MARKER + "**: [" + list(fills) + "]";
        }
        int n = options.size();
        char[] cells = ".".repeat(n * n).toCharArray();
        for (Fill f : fills) {
            boolean drawable = f.row() >= 0
                    && f.row() < n
                    && f.col() >= 0
                    && f.col() < n
                    && f.value() >= 1
                    && f.value() <= n
                    && cells[f.row() * n + f.col()] == '.';
            if (!drawable) {
                return list(fills);
            }
            cells[f.row() * n + f.col()] = (char) ('0' + f.value());
        }
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < n; r++) {
            sb.append(r > 0 ? "/" : "").append(cells, r * n, n);
        }
        return sb.toString();
    }

    private static String list(List<Fill> fills) {
        return String.join(
                " ",
                fills.stream()
                        .map(f -> "(" + f.row() + "," + f.col() + "," + f.value() + ")")
                        .toList());
    }

    @Override
    public List<Fill> randomAction(SudokuBoard b, SplittableRandom rng) {
        List<Fill> fills = new ArrayList<>();
        int count = 1 + rng.nextInt(3);
        for (int i = 0; i < count; i++) {
            fills.add(new Fill(rng.nextInt(b.n()), rng.nextInt(b.n()), 1 + rng.nextInt(b.n())));
        }
        return fills;
    }

    @Override
    public List<Fill> truncate(List<Fill> action, int keep) {
        return List.copyOf(action.subList(0, Math.min(keep, action.size())));
    }

    @Override
    public int length(List<Fill> action) {
        return action.size();
    }

    /** The solver programs a program-writing tool is warmed up on (SudokuPrograms). */
    @Override
    public List<ToolProgram<SudokuBoard>> toolPrograms() {
        return SudokuPrograms.catalog();
    }

    @Override
    public List<ToolProgram<SudokuBoard>> flawedPrograms() {
        return SudokuPrograms.flawCombinations();
    }

    @Override
    public List<ProgramPlace> flawPlaces() {
        return SudokuPrograms.flawPlaces();
    }

    @Override
    public String rules() {
        int n = options.size();
        return "Fill the " + n + "x" + n + " grid (. is empty) so that every row, column and box holds each digit 1.."
                + n + " exactly once. The given digits are fixed. Rows and columns are numbered from 0.";
    }

    @Override
    public String answerFormat() {
        return "Think briefly, then end your answer with the cells to fill as **Actions List**: [(row, col, value), ...].";
    }
}

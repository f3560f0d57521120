package org.pettingllms.envs.sudoku;

import java.util.List;
import java.util.Set;
import org.pettingllms.envs.planning.FlawCombinations;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * The Sudoku tool's program catalog: a backtracking search over the board read from standard input (the prompt's
 * rows, digits and {@code .}; a later turn's {@code fills:} line skipped) that prints the completed grid as the
 * compact answer writes it ({@code 1234/3412/2143/4321}), and three flawed edits of it: no undo (the first value
 * that fits stays; stuck cells print as {@code .}), the rows printed as columns (transposed), and values tried only
 * up to {@code n - 1} (no solution: it prints the board unchanged). The correct one is a fifth of the demonstrations and
 * the transposed one, which fails on every board, nearly half; the greedy one solves about two boards in three.
 */
public final class SudokuPrograms {
    private SudokuPrograms() {}

    static String program(String ok, String values, String recurse, String rows) {
        return program(ok, values, recurse, "n*n", "0", rows);
    }

    /**
     * As above, the search done at cell {@code end} and starting at cell {@code start} (Python expressions: {@code
     * n*n} or {@code n*n-1}; {@code 0} or {@code n}).
     */
    static String program(String ok, String values, String recurse, String end, String start, String rows) {
        return "import sys\n"
                + "g=[[int(h) if h!='.' else 0 for h in l] for l in sys.stdin.read().split('\\n') if l and l[0]!='f']\n"
                + "n=len(g);z=int(n**.5)\n"
                + "def ok(r,c,v):\n"
                + " return " + ok + "\n"
                + "def go(i):\n"
                + " if i==" + end + ":return True\n"
                + " r,c=divmod(i,n)\n"
                + " if g[r][c]:return go(i+1)\n"
                + " for v in " + values + ":\n"
                + "  if ok(r,c,v):\n"
                + "   g[r][c]=v\n"
                + "   " + recurse + "\n"
                + " g[r][c]=0\n"
                + " return False\n"
                + "go(" + start + ")\n"
                + "print('/'.join(''.join(str(v or '.') for v in w) for w in " + rows + "))\n";
    }

    static final String LINES = "all(g[r][j]!=v and g[j][c]!=v for j in range(n))";
    static final String BOX = "all(g[i][j]!=v for i in range(r//z*z,r//z*z+z) for j in range(c//z*z,c//z*z+z))";
    static final String VALUES = "range(1,n+1)";
    static final String BACKTRACK = "if go(i+1):return True";
    static final String GREEDY = "return go(i+1)";
    static final String SHORT_VALUES = "range(1,n)";

    private static final String RULES = LINES + " and " + BOX;
    /** Built once: demonstrations and the scripted tool ask for it on every board. */
    private static final List<ToolProgram<SudokuBoard>> CATALOG = List.of(
            new ToolProgram<>(
                    "backtrack",
                    program(RULES, VALUES, BACKTRACK, "g"),
                    true,
                    0.2,
                    b -> print(search(b, true, b.n()), b.n(), false)),
            new ToolProgram<>(
                    "greedy-no-undo",
                    program(RULES, VALUES, GREEDY, "g"),
                    false,
                    0.2,
                    b -> print(search(b, false, b.n()), b.n(), false)),
            new ToolProgram<>(
                    "backtrack-transposed",
                    program(RULES, VALUES, BACKTRACK, "zip(*g)"),
                    false,
                    0.45,
                    b -> print(search(b, true, b.n()), b.n(), true)),
            new ToolProgram<>(
                    "backtrack-values-short",
                    program(RULES, SHORT_VALUES, BACKTRACK, "g"),
                    false,
                    0.15,
                    b -> print(search(b, true, b.n() - 1), b.n(), false)));

    public static List<ToolProgram<SudokuBoard>> catalog() {
        return CATALOG;
    }

    static final String ROW_ONLY = "all(g[r][j]!=v for j in range(n))";

    /**
     * The five places a flawed program can be wrong at, in the order they appear in the program. The search starting
     * at cell {@code n} skips the first row, whose blanks then print as {@code .}: it fails on nearly every board
     * (all but the few whose first row is all clues). The search that stops one cell short leaves the last cell as it
     * was (blank on about half the boards with the configs' 8 blanks, more with the game's default 10). Earlier fourth
     * places (skips only the first cell; no undo, the catalog's greedy search) and a harsher one (no row check) left RL
     * short of the correct program: the mildest because its fix pays on few boards or, for no undo, because with other
     * places wrong undoing earns less than not; the harshest because no partial fix pays (docs/learning-diagnosis.md,
     * section 8).
     */
    enum Flaw {
        NO_COLUMN_CHECK,
        STOPS_ONE_SHORT,
        VALUES_SHORT,
        SKIPS_FIRST_ROW,
        TRANSPOSED
    }

    private static final List<ToolProgram<SudokuBoard>> COMBINATIONS =
            FlawCombinations.of(Flaw.class, SudokuPrograms::program);

    /**
     * Every program wrong in at least one of the five places ({@link Flaw}), in equal shares: the discovery
     * warm-up's demonstrations ({@link FlawCombinations}). Two of the catalog's flawed programs are among them
     * (transposed, values short), with the same text; its greedy one is not.
     */
    public static List<ToolProgram<SudokuBoard>> flawCombinations() {
        return COMBINATIONS;
    }

    private static final List<ProgramPlace> PLACES = FlawCombinations.places(Flaw.class, SudokuPrograms::program);

    /** The five places ({@link Flaw}) as text: which of them a sampled program has right ({@link ProgramPlace}). */
    public static List<ProgramPlace> flawPlaces() {
        return PLACES;
    }

    static ToolProgram<SudokuBoard> program(Set<Flaw> flaws) {
        boolean columns = !flaws.contains(Flaw.NO_COLUMN_CHECK);
        boolean stopsShort = flaws.contains(Flaw.STOPS_ONE_SHORT);
        boolean shortValues = flaws.contains(Flaw.VALUES_SHORT);
        boolean skipsRow = flaws.contains(Flaw.SKIPS_FIRST_ROW);
        boolean transposed = flaws.contains(Flaw.TRANSPOSED);
        String source = program(
                (columns ? LINES : ROW_ONLY) + " and " + BOX,
                shortValues ? SHORT_VALUES : VALUES,
                BACKTRACK,
                stopsShort ? "n*n-1" : "n*n",
                skipsRow ? "n" : "0",
                transposed ? "zip(*g)" : "g");
        return new ToolProgram<>(
                FlawCombinations.name("backtrack", flaws),
                source,
                flaws.isEmpty(),
                0,
                b -> print(
                        search(
                                b,
                                true,
                                shortValues ? b.n() - 1 : b.n(),
                                columns,
                                skipsRow ? b.n() : 0,
                                stopsShort ? b.n() * b.n() - 1 : b.n() * b.n()),
                        b.n(),
                        transposed));
    }

    /**
     * The grid the Python search leaves: cells in row-major order, values ascending, the first completion found;
     * the board unchanged when there is none.
     */
    static int[] search(SudokuBoard b, boolean undo, int maxValue) {
        return search(b, undo, maxValue, true, 0, b.n() * b.n());
    }

    /**
     * As above, the value test checking columns only where asked, the search starting at cell {@code first} and done
     * (successfully) on reaching cell {@code end}.
     */
    static int[] search(SudokuBoard b, boolean undo, int maxValue, boolean columns, int first, int end) {
        int n = b.n();
        int[] g = new int[n * n];
        for (int i = 0; i < g.length; i++) {
            g[i] = b.grid().charAt(i) - '0';
        }
        new Search(g, n, b.box(), undo, maxValue, columns, end).go(first);
        return g;
    }

    private record Search(int[] g, int n, int z, boolean undo, int maxValue, boolean columns, int end) {
        boolean go(int i) {
            if (i == end) {
                return true;
            }
            if (g[i] != 0) {
                return go(i + 1);
            }
            for (int v = 1; v <= maxValue; v++) {
                if (ok(i / n, i % n, v)) {
                    g[i] = v;
                    if (!undo) {
                        return go(i + 1); // greedy: the first value that fits stays
                    }
                    if (go(i + 1)) {
                        return true;
                    }
                }
            }
            g[i] = 0;
            return false;
        }

        private boolean ok(int r, int c, int v) {
            for (int j = 0; j < n; j++) {
                if (g[r * n + j] == v || (columns && g[j * n + c] == v)) {
                    return false;
                }
            }
            for (int i = r / z * z; i < r / z * z + z; i++) {
                for (int j = c / z * z; j < c / z * z + z; j++) {
                    if (g[i * n + j] == v) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private static String print(int[] g, int n, boolean transposed) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < n; r++) {
            sb.append(r > 0 ? "/" : "");
            for (int c = 0; c < n; c++) {
                int v = transposed ? g[c * n + r] : g[r * n + c];
                sb.append(v == 0 ? '.' : (char) ('0' + v));
            }
        }
        return sb.toString();
    }
}

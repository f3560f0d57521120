package org.pettingllms.envs.planpath;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import org.pettingllms.envs.planning.FlawCombinations;
import org.pettingllms.envs.planning.MoveTable;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * The Plan-Path tool's program catalog: a breadth-first search over the board read from standard input (the
 * prompt's rows, {@code A} the agent, {@code G} the goal, {@code #} walls) that prints the moves, and three flawed
 * edits of it. The untrained tool mostly writes the up/down-swapped one, which prints a mirrored path that fails on
 * almost every board; the correct one is a fifth of the demonstrations.
 */
public final class PlanPathPrograms {
    private PlanPathPrograms() {}

    static final String HEAD = """
            import sys
            from collections import deque
            g=sys.stdin.read().split()
            R,C=len(g),len(g[0])
            a=[(r,c) for r in range(R) for c in range(C) if g[r][c]=='A'][0]
            q=deque([a]);p={a:''}
            """;

    /** The search with the given loop condition, direction table and neighbour test. */
    static String bfs(String loop, String directions, String test) {
        return bfs(loop, PRINT, directions, test);
    }

    /** As above, with the given print statement at the goal. */
    static String bfs(String loop, String print, String directions, String test) {
        return HEAD + loop + "\n"
                + " r,c=q.popleft()\n"
                + " if g[r][c]=='G':" + print + ";break\n"
                + " for m,y,x in " + directions + ":\n"
                + "  n=(r+y,c+x)\n"
                + "  if " + test + " and n not in p:\n"
                + "   p[n]=p[r,c]+m;q.append(n)\n";
    }

    static final String LOOP = "while q:";
    static final String PRINT = "print(p[r,c])";
    static final String PRINT_SHORT = "print(p[r,c][:-1])";
    static final int SHORT_LIMIT = 25;
    static final String SHORT_LOOP = "while q and len(p)<" + SHORT_LIMIT + ":";
    static final String DIRECTIONS = MoveTable.python(false, false);
    static final String SWAPPED = MoveTable.python(true, false);
    static final String INSIDE = "0<=n[0]<R and 0<=n[1]<C";
    static final String FREE = INSIDE + " and g[n[0]][n[1]]!='#'";

    private static final int[][] DIRS = MoveTable.steps(false, false);
    private static final int[][] DIRS_SWAPPED = MoveTable.steps(true, false);
    private static final char[] LETTERS = {'U', 'D', 'L', 'R'};

    /** Built once: demonstrations and the scripted tool ask for it on every board. */
    private static final List<ToolProgram<PathBoard>> CATALOG = List.of(
            new ToolProgram<>(
                    "bfs", bfs(LOOP, DIRECTIONS, FREE), true, 0.2, b -> search(b, DIRS, true, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-swapped-ud",
                    bfs(LOOP, SWAPPED, FREE),
                    false,
                    0.6,
                    b -> search(b, DIRS_SWAPPED, true, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-through-walls",
                    bfs(LOOP, DIRECTIONS, INSIDE),
                    false,
                    0.1,
                    b -> search(b, DIRS, false, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-cut-short",
                    bfs(SHORT_LOOP, DIRECTIONS, FREE),
                    false,
                    0.1,
                    b -> search(b, DIRS, true, SHORT_LIMIT)));

    public static List<ToolProgram<PathBoard>> catalog() {
        return CATALOG;
    }

    /** The five places a flawed program can be wrong at, in the order they appear in the program. */
    enum Flaw {
        CUT_SHORT,
        STOPS_ONE_SHORT,
        SWAPPED_UD,
        SWAPPED_LR,
        THROUGH_WALLS
    }

    private static final List<ToolProgram<PathBoard>> COMBINATIONS =
            FlawCombinations.of(Flaw.class, PlanPathPrograms::program);

    /**
     * Every program wrong in at least one of the five places ({@link Flaw}), in equal shares: the discovery
     * warm-up's demonstrations ({@link FlawCombinations}). The catalog's three flawed programs are among them, with
     * the same text.
     */
    public static List<ToolProgram<PathBoard>> flawCombinations() {
        return COMBINATIONS;
    }

    private static final List<ProgramPlace> PLACES = FlawCombinations.places(Flaw.class, PlanPathPrograms::program);

    /** The five places ({@link Flaw}) as text: which of them a sampled program has right ({@link ProgramPlace}). */
    public static List<ProgramPlace> flawPlaces() {
        return PLACES;
    }

    static ToolProgram<PathBoard> program(Set<Flaw> flaws) {
        boolean shortLoop = flaws.contains(Flaw.CUT_SHORT);
        boolean dropLast = flaws.contains(Flaw.STOPS_ONE_SHORT);
        boolean ud = flaws.contains(Flaw.SWAPPED_UD);
        boolean lr = flaws.contains(Flaw.SWAPPED_LR);
        boolean walls = !flaws.contains(Flaw.THROUGH_WALLS);
        String source = bfs(
                shortLoop ? SHORT_LOOP : LOOP,
                dropLast ? PRINT_SHORT : PRINT,
                MoveTable.python(ud, lr),
                walls ? FREE : INSIDE);
        int[][] dirs = MoveTable.steps(ud, lr);
        int limit = shortLoop ? SHORT_LIMIT : Integer.MAX_VALUE;
        return new ToolProgram<>(FlawCombinations.name("bfs", flaws), source, flaws.isEmpty(), 0, b -> {
            String path = search(b, dirs, walls, limit);
            return dropLast ? FlawCombinations.oneShort(path) : path;
        });
    }

    /**
     * What the Python search prints, step for step: neighbours in table order, a cell's path fixed when first
     * discovered, the goal checked when dequeued, the loop stopping once {@code limit} cells are discovered.
     */
    static String search(PathBoard b, int[][] dirs, boolean walls, int limit) {
        String[] path = new String[b.rows() * b.cols()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        path[b.pos()] = "";
        int discovered = 1;
        queue.add(b.pos());
        while (!queue.isEmpty() && discovered < limit) {
            int cur = queue.poll();
            if (cur == b.goal()) {
                return path[cur];
            }
            for (int d = 0; d < dirs.length; d++) {
                int r = b.row(cur) + dirs[d][0];
                int c = b.col(cur) + dirs[d][1];
                if (r < 0 || r >= b.rows() || c < 0 || c >= b.cols()) {
                    continue;
                }
                int next = r * b.cols() + c;
                if ((!walls || b.free(next)) && path[next] == null) {
                    path[next] = path[cur] + LETTERS[d];
                    discovered++;
                    queue.add(next);
                }
            }
        }
        return "";
    }
}

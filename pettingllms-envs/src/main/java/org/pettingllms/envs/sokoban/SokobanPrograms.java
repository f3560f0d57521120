package org.pettingllms.envs.sokoban;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.envs.planning.FlawCombinations;
import org.pettingllms.envs.planning.MoveTable;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;

/**
 * The Sokoban tool's program catalog: a breadth-first search over (player, boxes) states of the board read from
 * standard input (the prompt's rows: {@code #} wall, {@code .} goal, {@code $} box, {@code @} player, {@code *} box
 * on a goal, {@code +} player on a goal, space floor) that prints the moves once every box is on a goal, and three
 * flawed edits of it: up and down swapped, a goal test on the player instead of the boxes, and a search cut short.
 * The untrained tool mostly writes the swapped one; the correct one is a fifth of the demonstrations.
 */
public final class SokobanPrograms {
    private SokobanPrograms() {}

    static final String HEAD = """
            import sys
            from collections import deque
            g=[l for l in sys.stdin.read().split('\\n') if l]
            X=[(r,c,h) for r in range(len(g)) for c,h in enumerate(g[r])]
            F={(r,c) for r,c,h in X if h!='#'}
            T={(r,c) for r,c,h in X if h in '.*+'}
            a=[(r,c) for r,c,h in X if h in '@+'][0]
            s=(a,frozenset((r,c) for r,c,h in X if h in '$*'))
            q=deque([s]);p={s:''}
            """;

    /** The search with the given loop condition, goal test and direction table. */
    static String bfs(String loop, String goal, String directions) {
        return bfs(loop, goal, PRINT, directions);
    }

    /** As above, with the given print statement at the goal. */
    static String bfs(String loop, String goal, String print, String directions) {
        return HEAD + loop + "\n"
                + " s=q.popleft();(r,c),b=s\n"
                + " if " + goal + ":" + print + ";break\n"
                + " for m,y,x in " + directions + ":\n"
                + "  n=(r+y,c+x);k=(r+2*y,c+2*x)\n"
                + "  if n not in F:continue\n"
                + "  if n in b:\n"
                + "   if k not in F or k in b:continue\n"
                + "   e=b-{n}|{k}\n"
                + "  else:e=b\n"
                + "  t=(n,e)\n"
                + "  if t not in p:p[t]=p[s]+m;q.append(t)\n";
    }

    static final String LOOP = "while q:";
    static final int SHORT_LIMIT = 40;
    static final String SHORT_LOOP = "while q and len(p)<" + SHORT_LIMIT + ":";
    static final String BOXES_HOME = "b<=T";
    static final String PLAYER_HOME = "(r,c) in T";
    static final String PRINT = "print(p[s])";
    static final String PRINT_SHORT = "print(p[s][:-1])";
    static final String DIRECTIONS = MoveTable.python(false, false);
    static final String SWAPPED = MoveTable.python(true, false);

    private static final int[][] DIRS = MoveTable.steps(false, false);
    private static final int[][] DIRS_SWAPPED = MoveTable.steps(true, false);
    private static final char[] LETTERS = {'U', 'D', 'L', 'R'};

    /** Built once: demonstrations and the scripted tool ask for it on every board. */
    private static final List<ToolProgram<SokobanBoard>> CATALOG = List.of(
            new ToolProgram<>(
                    "bfs",
                    bfs(LOOP, BOXES_HOME, DIRECTIONS),
                    true,
                    0.2,
                    b -> search(b, DIRS, false, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-swapped-ud",
                    bfs(LOOP, BOXES_HOME, SWAPPED),
                    false,
                    0.5,
                    b -> search(b, DIRS_SWAPPED, false, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-player-to-goal",
                    bfs(LOOP, PLAYER_HOME, DIRECTIONS),
                    false,
                    0.15,
                    b -> search(b, DIRS, true, Integer.MAX_VALUE)),
            new ToolProgram<>(
                    "bfs-cut-short",
                    bfs(SHORT_LOOP, BOXES_HOME, DIRECTIONS),
                    false,
                    0.15,
                    b -> search(b, DIRS, false, SHORT_LIMIT)));

    public static List<ToolProgram<SokobanBoard>> catalog() {
        return CATALOG;
    }

    /** The five places a flawed program can be wrong at, in the order they appear in the program. */
    enum Flaw {
        CUT_SHORT,
        PLAYER_TO_GOAL,
        STOPS_ONE_SHORT,
        SWAPPED_UD,
        SWAPPED_LR
    }

    private static final List<ToolProgram<SokobanBoard>> COMBINATIONS =
            FlawCombinations.of(Flaw.class, SokobanPrograms::program);

    /**
     * Every program wrong in at least one of the five places ({@link Flaw}), in equal shares: the discovery
     * warm-up's demonstrations ({@link FlawCombinations}). The catalog's three flawed programs are among them, with
     * the same text.
     */
    public static List<ToolProgram<SokobanBoard>> flawCombinations() {
        return COMBINATIONS;
    }

    private static final List<ProgramPlace> PLACES = FlawCombinations.places(Flaw.class, SokobanPrograms::program);

    /** The five places ({@link Flaw}) as text: which of them a sampled program has right ({@link ProgramPlace}). */
    public static List<ProgramPlace> flawPlaces() {
        return PLACES;
    }

    static ToolProgram<SokobanBoard> program(Set<Flaw> flaws) {
        boolean shortLoop = flaws.contains(Flaw.CUT_SHORT);
        boolean playerHome = flaws.contains(Flaw.PLAYER_TO_GOAL);
        boolean dropLast = flaws.contains(Flaw.STOPS_ONE_SHORT);
        boolean ud = flaws.contains(Flaw.SWAPPED_UD);
        boolean lr = flaws.contains(Flaw.SWAPPED_LR);
        String source = bfs(
                shortLoop ? SHORT_LOOP : LOOP,
                playerHome ? PLAYER_HOME : BOXES_HOME,
                dropLast ? PRINT_SHORT : PRINT,
                MoveTable.python(ud, lr));
        int[][] dirs = MoveTable.steps(ud, lr);
        int limit = shortLoop ? SHORT_LIMIT : Integer.MAX_VALUE;
        return new ToolProgram<>(FlawCombinations.name("bfs", flaws), source, flaws.isEmpty(), 0, b -> {
            String path = search(b, dirs, playerHome, limit);
            return dropLast ? FlawCombinations.oneShort(path) : path;
        });
    }

    private record State(int player, List<Integer> boxes) {}

    /**
     * What the Python search prints, step for step: neighbours in table order, a state's moves fixed when first
     * discovered, the goal tested when dequeued, the loop stopping once {@code limit} states are discovered.
     */
    static String search(SokobanBoard b, int[][] dirs, boolean playerHome, int limit) {
        int cols = b.cols();
        State start = new State(b.player(), b.boxes());
        Map<State, String> path = new HashMap<>();
        ArrayDeque<State> queue = new ArrayDeque<>();
        path.put(start, "");
        queue.add(start);
        while (!queue.isEmpty() && path.size() < limit) {
            State s = queue.poll();
            boolean home = playerHome ? b.goal(s.player()) : s.boxes().stream().allMatch(b::goal);
            if (home) {
                return path.get(s);
            }
            int r = s.player() / cols;
            int c = s.player() % cols;
            for (int d = 0; d < dirs.length; d++) {
                int n = cell(b, r + dirs[d][0], c + dirs[d][1]);
                if (n < 0) {
                    continue;
                }
                List<Integer> boxes = s.boxes();
                if (boxes.contains(n)) {
                    int k = cell(b, r + 2 * dirs[d][0], c + 2 * dirs[d][1]);
                    if (k < 0 || boxes.contains(k)) {
                        continue;
                    }
                    List<Integer> moved = new ArrayList<>(boxes);
                    moved.set(moved.indexOf(n), k);
                    boxes = moved.stream().sorted().toList();
                }
                State t = new State(n, boxes);
                if (!path.containsKey(t)) {
                    path.put(t, path.get(s) + LETTERS[d]);
                    queue.add(t);
                }
            }
        }
        return "";
    }

    /** A free cell's index, or -1 for a wall or a cell off the board (the program's {@code n not in F}). */
    private static int cell(SokobanBoard b, int r, int c) {
        if (r < 0 || r >= b.rows() || c < 0 || c >= b.cols()) {
            return -1;
        }
        int i = r * b.cols() + c;
        return b.wall(i) ? -1 : i;
    }
}

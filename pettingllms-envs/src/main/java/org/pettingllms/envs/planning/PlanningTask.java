package org.pettingllms.envs.planning;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.data.ContentSplit;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * The tool + plan workflow of the planning games (ENVIRONMENTS.md). {@code tool} proposes an action, which is
 * SIMULATED on the current board (the real board is unchanged); its local reward is the simulated reward. {@code
 * plan} answers the action that is executed on the real board; its local reward, and the team reward, are the
 * reward of the executed moves. With roles {@code [plan]} it is the single-agent (L0) variant.
 *
 * <p>Two tool modes. {@link ToolMode#ANSWER}: the tool answers an action directly, and the planner sees it with the
 * environment's verdict on it (end position, invalid moves, solved). {@link ToolMode#PROGRAM}, as in the paper: the
 * tool writes a Python program that reads the board on standard input and prints the answer; it runs in the
 * sandbox, its printed answer is simulated for the tool's reward (a program that fails or prints nothing earns
 * {@link #PROGRAM_FAILURE}), and the planner sees only what it printed (or its error), never a verdict.
 */
public final class PlanningTask<B, A> implements Task<PlanningState<B>>, ScriptedPlay, Demonstrations {
    public static final String TOOL = "tool";
    public static final String PLAN = "plan";

    /** The tool's reward when its program fails, times out or prints nothing (the paper's penalty). */
    public static final double PROGRAM_FAILURE = -2.0;

    // the drainMetrics counts of the tool's programs: a flawed program of the game (its catalog's or a flaw combination
    // of Game.flawedPrograms), the catalog's correct one, neither
    public static final String PROGRAMS_FLAWED = "tool/programs_catalog_flawed";
    public static final String PROGRAMS_CORRECT = "tool/programs_catalog_correct";
    public static final String PROGRAMS_OTHER = "tool/programs_other";
    // per place of Game.flawPlaces: tool/place/<name>/right and /wrong, the tool's programs right or wrong there
    public static final String PLACE_PREFIX = "tool/place/";

    /** How the tool role answers. */
    public enum ToolMode {
        ANSWER,
        PROGRAM
    }

    private final Game<B, A> game;
    private final List<String> roles;
    private final int maxTurns;
    private final View view;
    private final ToolMode toolMode;
    private final ToolRunner runner;
    // each known program's stripped source (catalog and flaw combinations) -> whether it is the correct one, built
    // once: every tool step looks it up
    private final Map<String, Boolean> catalog;
    // what the tool's programs were, against the game's catalog: counted since the last drainMetrics
    private final LongAdder flawedCatalog = new LongAdder();
    private final LongAdder correctCatalog = new LongAdder();
    private final LongAdder otherPrograms = new LongAdder();
    // the tool's programs right and wrong at each of the game's places (Game.flawPlaces), in its order
    private final List<ProgramPlace> places;
    private final LongAdder[] rightAt;
    private final LongAdder[] wrongAt;

    public PlanningTask(Game<B, A> game, List<String> roles, int maxTurns) {
        this(game, roles, maxTurns, ToolMode.ANSWER, null);
    }

    /** @param runner runs the tool's programs; required in {@link ToolMode#PROGRAM} */
    public PlanningTask(Game<B, A> game, List<String> roles, int maxTurns, ToolMode toolMode, ToolRunner runner) {
        this(game, roles, maxTurns, toolMode, runner, View.TEXT);
    }

    /**
     * How the roles see the board ({@code task.options.view}): its rows as text, or a picture ({@link BoardPicture})
     * in place of them. A tool's program reads the rows from the environment either way.
     */
    public enum View {
        TEXT,
        IMAGE
    }

    /** @param view how prompts show the board; {@link View#IMAGE} needs a game with {@link Game#colours()} */
    public PlanningTask(
            Game<B, A> game, List<String> roles, int maxTurns, ToolMode toolMode, ToolRunner runner, View view) {
        if (view == View.IMAGE && game.colours().isEmpty()) {
            throw new IllegalArgumentException(game.id() + " has no picture of its board (no colours): use view text");
        }
        this.view = view;
        if (!(roles.equals(List.of(TOOL, PLAN)) || roles.equals(List.of(PLAN)))) {
            throw new IllegalArgumentException(
                    "planning games have roles [tool, plan] (multi-agent) or [plan] (single agent), got " + roles);
        }
        if (maxTurns < 1) {
            throw new IllegalArgumentException("maxTurns must be >= 1, got " + maxTurns);
        }
        if (toolMode == ToolMode.PROGRAM && runner == null) {
            throw new IllegalArgumentException("a program-writing tool needs a sandbox to run its programs");
        }
        this.game = game;
        this.roles = List.copyOf(roles);
        this.maxTurns = maxTurns;
        this.toolMode = toolMode;
        this.runner = runner;
        this.catalog = Stream.concat(game.toolPrograms().stream(), game.flawedPrograms().stream())
                .collect(Collectors.toUnmodifiableMap(p -> p.source().strip(), ToolProgram::correct, (a, b) -> a));
        this.places = game.flawPlaces();
        this.rightAt = Stream.generate(LongAdder::new).limit(places.size()).toArray(LongAdder[]::new);
        this.wrongAt = Stream.generate(LongAdder::new).limit(places.size()).toArray(LongAdder[]::new);
    }

    public ToolMode toolMode() {
        return toolMode;
    }

    /**
     * The sandbox's counters ({@link ToolRunner#drainMetrics}) and, since the last call, how many of the tool's
     * programs were exactly one of the game's flawed programs, its catalog's or its flaw combinations
     * ({@link Game#flawedPrograms}; {@code tool/programs_catalog_flawed}), exactly the catalog's correct one
     * ({@code tool/programs_catalog_correct}), or neither ({@code tool/programs_other}). A model warmed up with the
     * correct program withheld ({@code sft --withhold-correct}) was shown only flawed ones: its other two counts are
     * programs no demonstration contained. Where the game's flawed programs combine wrong places
     * ({@link Game#flawPlaces}), also how many programs were right ({@code tool/place/<name>/right}) and wrong
     * ({@code tool/place/<name>/wrong}) at each place, whatever they wrote elsewhere.
     */
    @Override
    public Map<String, Double> drainMetrics() {
        if (runner == null) {
            return Map.of();
        }
        Map<String, Double> m = new LinkedHashMap<>(runner.drainMetrics());
        m.put(PROGRAMS_FLAWED, (double) flawedCatalog.sumThenReset());
        m.put(PROGRAMS_CORRECT, (double) correctCatalog.sumThenReset());
        m.put(PROGRAMS_OTHER, (double) otherPrograms.sumThenReset());
        for (int i = 0; i < places.size(); i++) {
            m.put(PLACE_PREFIX + places.get(i).name() + "/right", (double) rightAt[i].sumThenReset());
            m.put(PLACE_PREFIX + places.get(i).name() + "/wrong", (double) wrongAt[i].sumThenReset());
        }
        return m;
    }

    private void countProgram(String program) {
        Boolean correct = catalog.get(program.strip());
        (correct == null ? otherPrograms : correct ? correctCatalog : flawedCatalog).increment();
        for (int i = 0; i < places.size(); i++) {
            int at = i;
            places.get(i).wrongIn(program).ifPresent(wrong -> (wrong ? wrongAt[at] : rightAt[at]).increment());
        }
    }

    public Game<B, A> game() {
        return game;
    }

    @Override
    public String id() {
        return game.id();
    }

    @Override
    public List<String> roles() {
        return roles;
    }

    @Override
    public int maxTurns() {
        return maxTurns;
    }

    /**
     * The board of a problem. Seeds of the splits are disjoint, but small games (a 4x4 Sudoku) could still draw the
     * same board from different seeds; so boards are split by content too ({@link ContentSplit#splitOf} of the
     * board's text), and generation re-draws (from derived seeds) until the board's split matches the problem's.
     * Train, validation and test boards therefore never coincide (reference defect 7).
     */
    @Override
    public PlanningState<B> initialState(Problem problem) {
        return PlanningState.start(ContentSplit.row(problem.seed(), (seed, id) -> game.generate(seed), game::render));
    }

    @Override
    public Prompt prompt(PlanningState<B> state, String role, int turn, PromptStyle style) {
        checkRole(role);
        Image picture = view == View.IMAGE ? picture(state.board()) : null;
        return style == PromptStyle.COMPACT
                ? PlanningPrompts.compact(game, state, role, picture)
                : PlanningPrompts.chat(
                        game, state, role, turn, roles.size() > 1, toolMode == ToolMode.PROGRAM, picture);
    }

    public View view() {
        return view;
    }

    /**
     * The board's picture, drawn once per board: the K candidates of a group and both roles see the same picture (the
     * same bytes, so the sampler shares their prompt).
     */
    private Image picture(B board) {
        String text = game.render(board);
        synchronized (pictures) {
            return pictures.computeIfAbsent(text, t -> BoardPicture.draw(t, game.colours(), game.id()));
        }
    }

    /** Recently drawn pictures by board text. */
    private final Map<String, Image> pictures = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Image> eldest) {
            return size() > 256;
        }
    };

    @Override
    public Transition<PlanningState<B>> step(PlanningState<B> state, String role, Completion completion) {
        checkRole(role);
        boolean tool = role.equals(TOOL);
        if (tool && toolMode == ToolMode.PROGRAM) {
            String program = CodeBlocks.lastPython(completion.text()).orElse(completion.text());
            countProgram(program);
            return toolOutput(state, runner.run(program, game.render(state.board())));
        }
        Optional<A> action = game.parse(completion.text());
        if (action.isEmpty()) {
            double p = game.unparseablePenalty();
            String note = "unparseable answer";
            PlanningState<B> next = tool
                    ? new PlanningState<>(
                            state.board(), oneLine(completion.text()), note, state.lastPlan(), state.success())
                    : new PlanningState<>(state.board(), "", "", note, state.success());
            return new Transition<>(
                    next, new RewardParts(p, tool ? 0 : p, 0), false, false, StepOutcome.UNPARSEABLE, note);
        }
        Game.Outcome<B> out = game.apply(state.board(), action.get());
        String answer = game.format(action.get(), PromptStyle.COMPACT);
        if (tool) {
            // simulated only: the real board stays as it is
            PlanningState<B> next =
                    new PlanningState<>(state.board(), answer, out.summary(), state.lastPlan(), state.success());
            return new Transition<>(
                    next,
                    new RewardParts(out.reward(), 0, 0),
                    false,
                    false,
                    simulatedStop(out),
                    answer + " -> " + out.summary());
        }
        PlanningState<B> next =
                new PlanningState<>(out.board(), "", "", answer + " -> " + out.summary(), out.success());
        StepOutcome stop = out.success()
                ? StepOutcome.SOLVED
                : out.done() ? StepOutcome.STEP_LIMIT : out.anyInvalid() ? StepOutcome.INVALID_ACTION : StepOutcome.OK;
        return new Transition<>(
                next,
                new RewardParts(out.reward(), out.reward(), 0),
                out.done(),
                out.success(),
                stop,
                answer + " -> " + out.summary());
    }

    /**
     * The tool's micro-step once its program has run: its printed answer is simulated on the current board (which
     * stays as it is) and shown to the planner without any verdict. Also used to build warm-up demonstrations.
     */
    public Transition<PlanningState<B>> toolOutput(PlanningState<B> state, ToolRunner.Result run) {
        Optional<A> action = run.ok() ? game.parse(run.output()) : Optional.empty();
        PlanningState<B> next = new PlanningState<>(state.board(), run.shown(), "", state.lastPlan(), state.success());
        if (action.isEmpty()) {
            return new Transition<>(
                    next,
                    new RewardParts(PROGRAM_FAILURE, 0, 0),
                    false,
                    false,
                    StepOutcome.UNPARSEABLE,
                    "program: " + run.shown());
        }
        Game.Outcome<B> out = game.apply(state.board(), action.get());
        return new Transition<>(
                next,
                new RewardParts(out.reward(), 0, 0),
                false,
                false,
                simulatedStop(out),
                "program printed " + run.output() + " -> " + out.summary());
    }

    /** What a tool's simulated answer did: solved, partly invalid, or fine but unsolved. */
    private static StepOutcome simulatedStop(Game.Outcome<?> out) {
        return out.success() ? StepOutcome.SOLVED : out.anyInvalid() ? StepOutcome.INVALID_ACTION : StepOutcome.OK;
    }

    private void checkRole(String role) {
        if (!roles.contains(role)) {
            throw new IllegalArgumentException("unknown role '" + role + "' for " + id() + "; roles are " + roles);
        }
    }

    static String oneLine(String s) {
        String line = s.strip().lines().findFirst().orElse("");
        return line.length() > 40 ? line.substring(0, 40) : line;
    }

    /** The game's solver team: right with probability {@code skill}, a typical mistake otherwise. */
    @Override
    public TextPolicy scripted(double skill, List<Problem> problems) {
        return new SolverPolicy<>(game, skill, toolMode == ToolMode.PROGRAM);
    }

    /** Solver demonstrations ({@link SolverDemonstrations}): catalog programs for a program-writing tool. */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        return SolverDemonstrations.of(this, problem, style, settings, rng);
    }
}

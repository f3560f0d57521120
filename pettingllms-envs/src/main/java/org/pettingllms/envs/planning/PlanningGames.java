package org.pettingllms.envs.planning;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;
import org.pettingllms.envs.sokoban.SokobanGame;
import org.pettingllms.envs.sudoku.SudokuGame;

/** Makes the planning games by name: {@code plan-path}, {@code sokoban}, {@code sudoku}. */
public final class PlanningGames implements TaskProvider {
    public static final List<String> DEFAULT_ROLES = List.of(PlanningTask.TOOL, PlanningTask.PLAN);

    @Override
    public Set<String> names() {
        return Set.of("plan-path", "sokoban", "sudoku");
    }

    /** The option that picks the tool mode; every other option belongs to the game. */
    public static final String TOOL_OPTION = "tool";
    /** A tool program's limits: a search on these boards takes milliseconds. */
    static final SandboxLimits PROGRAM_LIMITS = SandboxLimits.DEFAULT.withWallTime(Duration.ofSeconds(2));

    @Override
    public PlanningTask<?, ?> create(RunConfig.TaskSpec spec) {
        List<String> roles = spec.roles().isEmpty() ? DEFAULT_ROLES : spec.roles();
        PlanningTask.ToolMode mode = toolMode(spec);
        return create(game(spec), roles, spec.maxTurns(), mode);
    }

    private static <B, A> PlanningTask<B, A> create(Game<B, A> game, List<String> roles, int maxTurns,
                                                    PlanningTask.ToolMode mode) {
        if (mode == PlanningTask.ToolMode.PROGRAM && game.toolPrograms().isEmpty()) {
            throw new ConfigException("config key 'task.options.tool': " + game.id() + " has no tool programs yet;"
                    + " use 'answer'");
        }
        ToolRunner runner = mode == PlanningTask.ToolMode.PROGRAM && roles.contains(PlanningTask.TOOL)
                ? new ToolRunner(Sandbox.create(PROGRAM_LIMITS, Runtime.getRuntime().availableProcessors()),
                PROGRAM_LIMITS) : null;
        return new PlanningTask<>(game, roles, maxTurns, runner == null ? PlanningTask.ToolMode.ANSWER : mode, runner);
    }

    /** {@code task.options.tool}: {@code answer} (default: the tool answers directly) or {@code program}. */
    static PlanningTask.ToolMode toolMode(RunConfig.TaskSpec spec) {
        Object v = spec.options().getOrDefault(TOOL_OPTION, "answer");
        return switch (String.valueOf(v)) {
            case "answer" -> PlanningTask.ToolMode.ANSWER;
            case "program" -> PlanningTask.ToolMode.PROGRAM;
            default -> throw new ConfigException("config key 'task.options.tool': expected answer or program, got '"
                    + v + "'");
        };
    }

    /** The game of a spec, its options bound over the game's defaults. */
    public static Game<?, ?> game(RunConfig.TaskSpec spec) {
        String src = "task.options";
        Map<String, Object> options = new HashMap<>(spec.options());
        options.remove(TOOL_OPTION);
        return switch (spec.name()) {
            case "plan-path" -> new PlanPathGame(
                    ConfigLoader.bindOptions(options, PlanPathGame.Options.DEFAULT, "task.options.", src));
            case "sokoban" -> new SokobanGame(
                    ConfigLoader.bindOptions(options, SokobanGame.Options.DEFAULT, "task.options.", src));
            case "sudoku" -> new SudokuGame(
                    ConfigLoader.bindOptions(options, SudokuGame.Options.DEFAULT, "task.options.", src));
            default -> throw new IllegalArgumentException("not a planning game: " + spec.name());
        };
    }
}

package org.pettingllms.envs.planning;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.TaskOptions;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * Makes the planning task of one game by name: the game's options are bound from {@code task.options} over its
 * defaults, and the tool + plan workflow is put around it. A game registers itself with a subclass of its own
 * (listed as a {@link TaskProvider} service), so adding a game edits nothing here.
 *
 * @param <O> the game's options record
 */
public abstract class GameTasks<O> implements TaskProvider {
    public static final List<String> DEFAULT_ROLES = List.of(PlanningTask.TOOL, PlanningTask.PLAN);
    /** The option that picks the tool mode; every other option belongs to the game. */
    public static final String TOOL_OPTION = "tool";
    /** The option that picks how prompts show the board: {@code text} (default) or {@code image}. */
    public static final String VIEW_OPTION = "view";
    /** A tool program's limits: a search on these boards takes milliseconds. */
    static final SandboxLimits PROGRAM_LIMITS = SandboxLimits.DEFAULT.forWork(Duration.ofSeconds(2));

    private final String name;
    private final O defaults;
    private final Function<O, Game<?, ?>> game;

    /**
     * @param name     the task name configs use ({@code task.name})
     * @param defaults the game's options where {@code task.options} sets none
     * @param game     the game for bound options
     */
    protected GameTasks(String name, O defaults, Function<O, Game<?, ?>> game) {
        this.name = name;
        this.defaults = defaults;
        this.game = game;
    }

    @Override
    public final Set<String> names() {
        return Set.of(name);
    }

    @Override
    public final PlanningTask<?, ?> create(RunConfig.TaskSpec spec) {
        List<String> roles = TaskOptions.roles(spec, DEFAULT_ROLES);
        return create(game(spec), roles, spec.maxTurns(), toolMode(spec), view(spec));
    }

    /** The game of a spec, its options bound over the game's defaults. */
    private Game<?, ?> game(RunConfig.TaskSpec spec) {
        Map<String, Object> options = new HashMap<>(spec.options());
        options.remove(TOOL_OPTION);
        options.remove(VIEW_OPTION);
        return game.apply(TaskOptions.bind(options, defaults));
    }

    private static <B, A> PlanningTask<B, A> create(
            Game<B, A> game, List<String> roles, int maxTurns, PlanningTask.ToolMode mode, PlanningTask.View view) {
        if (view == PlanningTask.View.IMAGE && game.colours().isEmpty()) {
            throw new ConfigException(
                    "config key 'task.options.view': " + game.id() + " has no picture of its board;" + " use 'text'");
        }
        if (mode == PlanningTask.ToolMode.PROGRAM && game.toolPrograms().isEmpty()) {
            throw new ConfigException(
                    "config key 'task.options.tool': " + game.id() + " has no tool programs yet;" + " use 'answer'");
        }
        ToolRunner runner = mode == PlanningTask.ToolMode.PROGRAM && roles.contains(PlanningTask.TOOL)
                ? new ToolRunner(Sandbox.create(PROGRAM_LIMITS, Sandbox.slots(0)), PROGRAM_LIMITS)
                : null;
        return new PlanningTask<>(
                game, roles, maxTurns, runner == null ? PlanningTask.ToolMode.ANSWER : mode, runner, view);
    }

    /** {@code task.options.view}: {@code text} (default: the board's rows) or {@code image} (a picture). */
    static PlanningTask.View view(RunConfig.TaskSpec spec) {
        Object v = spec.options().getOrDefault(VIEW_OPTION, "text");
        return switch (String.valueOf(v)) {
            case "text" -> PlanningTask.View.TEXT;
            case "image" -> PlanningTask.View.IMAGE;
            default ->
                throw new ConfigException("config key 'task.options.view': expected text or image, got '" + v + "'");
        };
    }

    /** {@code task.options.tool}: {@code answer} (default: the tool answers directly) or {@code program}. */
    static PlanningTask.ToolMode toolMode(RunConfig.TaskSpec spec) {
        Object v = spec.options().getOrDefault(TOOL_OPTION, "answer");
        return switch (String.valueOf(v)) {
            case "answer" -> PlanningTask.ToolMode.ANSWER;
            case "program" -> PlanningTask.ToolMode.PROGRAM;
            default ->
                throw new ConfigException(
                        "config key 'task.options.tool': expected answer or program, got '" + v + "'");
        };
    }
}

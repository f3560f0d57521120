package org.pettingllms.envs.planning;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanGame;
import org.pettingllms.envs.sudoku.SudokuGame;

/** Makes the planning games by name: {@code plan-path}, {@code sokoban}, {@code sudoku}. */
public final class PlanningGames implements TaskProvider {
    public static final List<String> DEFAULT_ROLES = List.of(PlanningTask.TOOL, PlanningTask.PLAN);

    @Override
    public Set<String> names() {
        return Set.of("plan-path", "sokoban", "sudoku");
    }

    @Override
    public PlanningTask<?, ?> create(RunConfig.TaskSpec spec) {
        List<String> roles = spec.roles().isEmpty() ? DEFAULT_ROLES : spec.roles();
        return new PlanningTask<>(game(spec), roles, spec.maxTurns());
    }

    /** The game of a spec, its options bound over the game's defaults. */
    public static Game<?, ?> game(RunConfig.TaskSpec spec) {
        String src = "task.options";
        return switch (spec.name()) {
            case "plan-path" -> new PlanPathGame(
                    ConfigLoader.bindOptions(spec.options(), PlanPathGame.Options.DEFAULT, "task.options.", src));
            case "sokoban" -> new SokobanGame(
                    ConfigLoader.bindOptions(spec.options(), SokobanGame.Options.DEFAULT, "task.options.", src));
            case "sudoku" -> new SudokuGame(
                    ConfigLoader.bindOptions(spec.options(), SudokuGame.Options.DEFAULT, "task.options.", src));
            default -> throw new IllegalArgumentException("not a planning game: " + spec.name());
        };
    }
}

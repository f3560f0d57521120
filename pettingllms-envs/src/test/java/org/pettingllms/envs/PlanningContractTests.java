package org.pettingllms.envs;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.PlanningState;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.SolverPolicy;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanBoard;
import org.pettingllms.envs.sokoban.SokobanGame;
import org.pettingllms.envs.sudoku.SudokuBoard;
import org.pettingllms.envs.sudoku.SudokuGame;
import org.pettingllms.testkit.TaskContract;

/** Every planning game, multi-agent and single-agent, passes the task contract. */
class PlanningContractTests {
    abstract static class GameContract<B, A> extends TaskContract<PlanningState<B>> {
        abstract Game<B, A> game();

        List<String> roles() {
            return List.of("tool", "plan");
        }

        PlanningTask.View view() {
            return PlanningTask.View.TEXT;
        }

        @Override
        protected Task<PlanningState<B>> task() {
            return new PlanningTask<>(game(), roles(), 4, PlanningTask.ToolMode.ANSWER, null, view());
        }

        @Override
        protected List<Problem> problems() {
            return new SeededProblems(game().id(), 100).problems(Split.TRAIN, 0, 12);
        }

        @Override
        protected TextPolicy policy() {
            return new SolverPolicy<>(game(), 0.4);
        }
    }

    @Nested
    class PlanPath extends GameContract<PathBoard, Object> {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        Game game() {
            return new PlanPathGame(PlanPathGame.Options.DEFAULT);
        }
    }

    @Nested
    class PlanPathSingleAgent extends PlanPath {
        @Override
        List<String> roles() {
            return List.of("plan");
        }
    }

    @Nested
    class PlanPathPicture extends PlanPath {
        @Override
        PlanningTask.View view() {
            return PlanningTask.View.IMAGE;
        }
    }

    @Nested
    class Sokoban extends GameContract<SokobanBoard, Object> {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        Game game() {
            return new SokobanGame(SokobanGame.Options.DEFAULT);
        }
    }

    @Nested
    class SokobanPicture extends Sokoban {
        @Override
        PlanningTask.View view() {
            return PlanningTask.View.IMAGE;
        }
    }

    @Nested
    class SokobanSingleAgent extends Sokoban {
        @Override
        List<String> roles() {
            return List.of("plan");
        }
    }

    @Nested
    class Sudoku extends GameContract<SudokuBoard, Object> {
        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        Game game() {
            return new SudokuGame(SudokuGame.Options.DEFAULT);
        }
    }

    @Nested
    class SudokuSingleAgent extends Sudoku {
        @Override
        List<String> roles() {
            return List.of("plan");
        }
    }
}

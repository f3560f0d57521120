package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanBoard;
import org.pettingllms.envs.sokoban.SokobanGame;
import org.pettingllms.envs.sudoku.SudokuBoard;
import org.pettingllms.envs.sudoku.SudokuGame;

class GenerationTest {
    static <B, A> List<B> boards(Game<B, A> game, Split split, int n) {
        var task = new PlanningTask<>(game, List.of("tool", "plan"), 4);
        return new SeededProblems(game.id(), 0)
                .problems(split, 0, n).stream()
                        .map(p -> task.initialState(p).board())
                        .toList();
    }

    /** The reference solution executed on the board solves it. */
    static <B, A> void solverSolves(Game<B, A> game, B board) {
        A solution = game.solve(board).orElseThrow();
        Game.Outcome<B> out = game.apply(board, solution);
        assertThat(out.success()).as("solution of\n%s", game.render(board)).isTrue();
    }

    @Test
    void planPathBoardsAreSolvableWithDistinctStartAndGoal() {
        PlanPathGame game = new PlanPathGame(PlanPathGame.Options.DEFAULT);
        double walls = 0;
        List<PathBoard> boards = boards(game, Split.TRAIN, 200);
        for (PathBoard b : boards) {
            assertThat(b.start()).isNotEqualTo(b.goal());
            assertThat(b.shortest()).isPositive();
            walls += b.walls().chars().filter(c -> c == '#').count() / 100.0;
            var out = game.apply(b, game.solve(b).orElseThrow());
            assertThat(out.success()).isTrue();
            assertThat(out.board().moves()).as("BFS solution is shortest").isEqualTo(b.shortest());
        }
        assertThat(walls / boards.size()).isBetween(0.17, 0.23); // regenerated boards lean a little open
    }

    @Test
    void sokobanRoomsAreSolvableAndNotSolvedAtStart() {
        SokobanGame game = new SokobanGame(SokobanGame.Options.DEFAULT);
        for (SokobanBoard b : boards(game, Split.TRAIN, 60)) {
            assertThat(b.rows()).isEqualTo(6);
            assertThat(b.boxes()).hasSize(1);
            assertThat(b.solved()).isFalse();
            assertThat(-b.potential()).as("minimum box distance").isGreaterThanOrEqualTo(2);
            solverSolves(game, b);
        }
    }

    @Test
    void sudokuPuzzlesHaveAUniqueSolutionThatTheSolverFinds() {
        SudokuGame game = new SudokuGame(SudokuGame.Options.DEFAULT);
        for (SudokuBoard b : boards(game, Split.TRAIN, 200)) {
            assertThat(b.filled()).isBetween(4, 8);
            assertThat(b.clues()).isEqualTo(b.grid());
            solverSolves(game, b);
        }
    }

    @Test
    void generationIsDeterministic() {
        PlanPathGame game = new PlanPathGame(PlanPathGame.Options.DEFAULT);
        assertThat(boards(game, Split.TEST, 20)).isEqualTo(boards(game, Split.TEST, 20));
        assertThat(game.generate(5)).isEqualTo(game.generate(5)).isNotEqualTo(game.generate(6));
    }

    @Test
    void trainAndTestNeverShareAnInstance() {
        // reference defect 7: train and test puzzles overlapped. 4x4 Sudoku has few puzzles, so this is a real risk.
        check(new SudokuGame(SudokuGame.Options.DEFAULT), 400);
        check(new PlanPathGame(PlanPathGame.Options.DEFAULT), 100);
        check(new SokobanGame(SokobanGame.Options.DEFAULT), 60);
        Problem train = new SeededProblems("x", 0).problems(Split.TRAIN, 0, 1).get(0);
        Problem test = new SeededProblems("x", 0).problems(Split.TEST, 0, 1).get(0);
        assertThat(train.seed()).isNotEqualTo(test.seed());
        assertThat(train.id()).isEqualTo("x/train/0");
    }

    private static <B, A> void check(Game<B, A> game, int n) {
        Function<B, String> text = game::render;
        Set<String> train =
                new HashSet<>(boards(game, Split.TRAIN, n).stream().map(text).toList());
        Set<String> test =
                new HashSet<>(boards(game, Split.TEST, n).stream().map(text).toList());
        assertThat(train).as(game.id()).doesNotContainAnyElementsOf(test);
        assertThat(test.size()).as("test boards of %s are varied", game.id()).isGreaterThan(n / 2);
    }
}

package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.ProgramPlace;
import org.pettingllms.envs.planning.ToolProgram;
import org.pettingllms.envs.planning.ToolRunner;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanGame;
import org.pettingllms.envs.sudoku.Fill;
import org.pettingllms.envs.sudoku.SudokuBoard;
import org.pettingllms.envs.sudoku.SudokuGame;

/**
 * Every game's tool program catalog, run in the sandbox: each program prints what its Java mirror says (the mirror
 * is what demonstrations show the planner), the correct program solves every board, and the flawed ones fail on
 * most boards, so that a tool warmed up on the catalog is right on a minority of boards.
 */
class ToolCatalogsTest {
    final ToolRunner runner = new ToolRunner(ProgramToolTest.BOX, ProgramToolTest.BOX.limits());

    static <B, A> List<B> boards(Game<B, A> game, int count) {
        PlanningTask<B, A> task = new PlanningTask<>(game, List.of(PlanningTask.TOOL, PlanningTask.PLAN), 4);
        List<B> boards = new ArrayList<>();
        for (long seed = 200; seed < 200 + count; seed++) {
            boards.add(task.initialState(Problem.generated("b" + seed, seed)).board());
        }
        return boards;
    }

    /** Solved share of each program over the boards, after checking program and mirror agree on every board. */
    <B, A> Map<String, Double> check(Game<B, A> game, List<B> boards) {
        Map<String, Double> solved = new LinkedHashMap<>();
        for (ToolProgram<B> p : game.toolPrograms()) {
            int ok = 0;
            for (B b : boards) {
                String mirror = p.output().apply(b);
                ToolRunner.Result r = runner.run(p.source(), game.render(b));
                assertThat(r.failure())
                        .as(p.name() + " failed on\n" + game.render(b))
                        .isEqualTo(mirror.isEmpty() ? "no output" : "");
                assertThat(r.output()).as(p.name() + " on\n" + game.render(b)).isEqualTo(mirror);
                ok += game.parse(mirror).map(a -> game.apply(b, a).success()).orElse(false) ? 1 : 0;
            }
            solved.put(p.name(), ok / (double) boards.size());
            if (p.correct()) {
                assertThat(ok).as(p.name() + " solves every board").isEqualTo(boards.size());
            }
        }
        List<ToolProgram<B>> catalog = game.toolPrograms();
        assertThat(catalog.stream().mapToDouble(ToolProgram::weight).sum()).isCloseTo(1.0, within(1e-9));
        double expected = catalog.stream()
                .mapToDouble(p -> p.weight() * solved.get(p.name()))
                .sum();
        assertThat(expected)
                .as("a tool drawing programs by weight is right on a minority of boards: " + solved)
                .isLessThan(0.5);
        return solved;
    }

    /** The planner is shown what the program printed and nothing the environment says about it. */
    <B, A> void plannerSeesNoVerdict(Game<B, A> game) {
        PlanningTask<B, A> task = new PlanningTask<>(
                game, List.of(PlanningTask.TOOL, PlanningTask.PLAN), 2, PlanningTask.ToolMode.PROGRAM, runner);
        for (ToolProgram<B> p : game.toolPrograms()) {
            var state = task.initialState(Problem.generated("v", 300));
            var next = task.step(state, PlanningTask.TOOL, Completion.ofText(p.source()))
                    .next();
            for (PromptStyle style : PromptStyle.values()) {
                String prompt =
                        task.prompt(next, PlanningTask.PLAN, 0, style).text().replace(game.rules(), "");
                String printed = p.output().apply(state.board());
                assertThat(prompt)
                        .contains(printed.isEmpty() ? "no output" : printed)
                        .doesNotContain("->")
                        .doesNotContain("solved")
                        .doesNotContain("on goals")
                        .doesNotContain("goal yes")
                        .doesNotContain("filled")
                        .doesNotContain("conflict")
                        .doesNotContain("invalid")
                        .doesNotContain("imulated");
            }
        }
    }

    @Test
    void noVerdictInAnyGamesPlannerPrompt() {
        plannerSeesNoVerdict(new PlanPathGame(PlanPathGame.Options.DEFAULT));
        plannerSeesNoVerdict(new SokobanGame(SokobanGame.Options.DEFAULT));
        plannerSeesNoVerdict(new SudokuGame(new SudokuGame.Options(4, 8)));
    }

    @Tag("heavy")
    @Test
    void planPath() {
        PlanPathGame game = new PlanPathGame(PlanPathGame.Options.DEFAULT);
        List<PathBoard> boards = boards(game, 12);
        Map<String, Double> solved = check(game, boards);
        assertThat(solved.get("bfs-swapped-ud")).isLessThanOrEqualTo(0.25);
        for (PathBoard b : boards) {
            assertThat(game.toolPrograms().get(0).output().apply(b))
                    .as("breadth-first: shortest")
                    .hasSize(b.shortest());
        }
    }

    @Tag("heavy")
    @Test
    void sokoban() {
        SokobanGame game = new SokobanGame(SokobanGame.Options.DEFAULT);
        Map<String, Double> solved = check(game, boards(game, 16));
        assertThat(solved.get("bfs-swapped-ud")).isLessThanOrEqualTo(0.25);
        assertThat(solved.get("bfs-player-to-goal")).isLessThanOrEqualTo(0.25);
    }

    @Tag("heavy")
    @Test
    void sudoku() {
        SudokuGame game = new SudokuGame(new SudokuGame.Options(4, 8));
        List<SudokuBoard> boards = boards(game, 16);
        Map<String, Double> solved = check(game, boards);
        assertThat(solved.get("backtrack-values-short")).isZero();
        assertThat(solved.get("backtrack-transposed")).isLessThanOrEqualTo(0.25);
        assertThat(solved.get("greedy-no-undo")).isLessThan(1.0);
    }

    /** Later turns: the board carries a fills line (skipped by the programs); an earlier wrong fill stays wrong. */
    @Test
    void sudokuAfterEarlierFills() {
        SudokuGame game = new SudokuGame(new SudokuGame.Options(4, 8));
        List<SudokuBoard> later = new ArrayList<>();
        for (SudokuBoard b : boards(game, 8)) {
            List<Fill> solution = game.solve(b).orElseThrow();
            SudokuBoard right = game.apply(b, solution.subList(0, 2)).board();
            Fill first = solution.get(0);
            SudokuBoard wrong = game.apply(b, List.of(new Fill(first.row(), first.col(), first.value() % 4 + 1)))
                    .board();
            assertThat(game.render(right)).contains("fills: ");
            later.add(right);
            later.add(wrong);
        }
        ToolProgram<SudokuBoard> correct = game.toolPrograms().get(0);
        for (int i = 0; i < later.size(); i++) {
            SudokuBoard b = later.get(i);
            String printed = runner.run(correct.source(), game.render(b)).output();
            assertThat(printed).isEqualTo(correct.output().apply(b));
            boolean solves = game.apply(b, game.parse(printed).orElseThrow()).success();
            assertThat(solves)
                    .as("right earlier fills: solved; a wrong one: not\n" + game.render(b))
                    .isEqualTo(i % 2 == 0);
        }
    }

    /**
     * A discovery warm-up's programs: 31 different flawed ones in equal shares, {@code catalogFlawed} of the catalog's
     * flawed programs among them (the same text) and its correct one not, each printing what its mirror says, and each
     * failing on many boards.
     */
    <B, A> void flawCombinations(Game<B, A> game, int catalogFlawed) {
        List<ToolProgram<B>> all = game.flawedPrograms();
        assertThat(all).hasSize(31).noneMatch(ToolProgram::correct);
        assertThat(all.stream().map(ToolProgram::source).distinct()).hasSize(31);
        assertThat(all.stream().mapToDouble(ToolProgram::weight).sum()).isCloseTo(1.0, within(1e-9));
        List<ToolProgram<B>> catalog = game.toolPrograms();
        assertThat(catalog.stream()
                        .filter(p -> !p.correct())
                        .filter(p -> all.stream().anyMatch(c -> c.source().equals(p.source()))))
                .hasSize(catalogFlawed);
        assertThat(all.stream().map(ToolProgram::source))
                .doesNotContainAnyElementsOf(catalog.stream()
                        .filter(ToolProgram::correct)
                        .map(ToolProgram::source)
                        .toList());
        // each place is read from the text as the program's name says: wrong where it has that flaw, right elsewhere
        List<ProgramPlace> places = game.flawPlaces();
        assertThat(places).hasSize(5);
        for (ToolProgram<B> p : all) {
            List<String> wrong =
                    List.of(p.name().substring(p.name().indexOf('-') + 1).split("\\+"));
            for (ProgramPlace place : places) {
                assertThat(place.wrongIn(p.source()))
                        .as(place.name() + " in " + p.name())
                        .contains(wrong.contains(place.name()));
            }
        }
        ToolProgram<B> correct =
                catalog.stream().filter(ToolProgram::correct).findFirst().orElseThrow();
        assertThat(places)
                .allSatisfy(place -> assertThat(place.wrongIn(correct.source()))
                        .as(place.name())
                        .contains(false));
        for (ToolProgram<B> p : all) {
            for (B b : boards(game, 3)) {
                ToolRunner.Result r = runner.run(p.source(), game.render(b));
                assertThat(r.output())
                        .as(p.name() + " on\n" + game.render(b))
                        .isEqualTo(p.output().apply(b));
            }
        }
        List<B> more = boards(game, 100);
        for (ToolProgram<B> p : all) {
            long solved = more.stream()
                    .filter(b -> game.parse(p.output().apply(b))
                            .map(a -> game.apply(b, a).success())
                            .orElse(false))
                    .count();
            assertThat(solved)
                    .as(p.name() + " fails on at least one board in ten")
                    .isLessThanOrEqualTo(90);
        }
    }

    @Tag("heavy")
    @Test
    void flawCombinationsOfEveryGame() {
        flawCombinations(new PlanPathGame(PlanPathGame.Options.DEFAULT), 3);
        flawCombinations(new SokobanGame(SokobanGame.Options.DEFAULT), 3);
        // Sudoku's catalog has a greedy search (no undo), which is not one of its places
        flawCombinations(new SudokuGame(new SudokuGame.Options(4, 8)), 2);
    }
}

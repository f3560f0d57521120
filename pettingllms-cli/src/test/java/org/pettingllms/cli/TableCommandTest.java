package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table's rows: held-out test problems, one budget per game, and cells with their interval. */
class TableCommandTest {
    @Test
    void aCellIsTheMeanTheSeedsRangeAndTheIntervalOverAllEvaluations() {
        // p = 0.6 on 100 problems (the seeds play almost the same boards, so not 2 x 100): 1.96 * sqrt(0.24 / 100)
        // = 0.0960
        assertThat(TableCommand.cell(List.of(0.5, 0.7), 100)).isEqualTo("60.0 (50.0-70.0) +/- 9.6");
        assertThat(TableCommand.cell(List.of(0.1), 200)).isEqualTo("10.0 +/- 4.2");
        assertThat(TableCommand.cell(List.of(1.0, 1.0), 200)).isEqualTo("100.0 (100.0-100.0) +/- 0.0");
        assertThat(TableCommand.cell(List.of(), 200)).isEqualTo("-");
    }

    @Test
    void newProgramsAreTheToolProgramsNoFlawedCatalogProgramEquals() {
        assertThat(TableCommand.newProgramShare(Map.of(
                        "tool/programs_catalog_flawed", 30.0,
                        "tool/programs_catalog_correct", 60.0,
                        "tool/programs_other", 10.0)))
                .isEqualTo(0.7);
        assertThat(TableCommand.newProgramShare(Map.of("tool/programs", 5.0)))
                .as("a task that does not count them")
                .isEqualTo(-1);
        assertThat(TableCommand.share(List.of(0.5, 0.75))).isEqualTo("62.5 (50.0-75.0)");
        assertThat(TableCommand.share(List.of())).isEqualTo("-");
    }

    @Test
    void theMarkdownHasTheOneRoleRowsAndTheNewProgramsRowOnlyWhereCounted() {
        TableCommand table = new TableCommand();
        table.games = List.of("plan-path", "code");
        table.seeds = List.of(1L);
        table.evalProblems = 200;
        Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
        TableCommand.METHODS.forEach(m -> results.put(m, new LinkedHashMap<>(Map.of("plan-path", List.of(0.5)))));
        results.put(TableCommand.NEW_PROGRAMS, new LinkedHashMap<>());
        assertThat(table.markdown(results))
                .contains("| L2, first role on the second's adapter | 50.0 +/- 6.9 | - |")
                .doesNotContain(TableCommand.NEW_PROGRAMS);
        results.get(TableCommand.NEW_PROGRAMS).put("plan-path", List.of(0.25));
        assertThat(table.markdown(results)).contains("| " + TableCommand.NEW_PROGRAMS + " | 25.0 (25.0-25.0) | - |");
    }

    @Test
    void everyRowEvaluatesOnHeldOutProblemsWithTheGamesL2BudgetAndTurns() {
        TableCommand table = new TableCommand();
        table.home = Path.of("..");
        table.evalProblems = 200;
        table.firstProblem = 100_000;
        for (String game : List.of("plan-path", "sokoban", "sudoku")) {
            var l2 = RunSetup.load(Path.of("..", "configs", game, "L2.yaml"), List.of(), System.getenv())
                    .config();
            for (String level : List.of("L0", "L1", "L2")) {
                var cfg = table.setup(game, level, 2, level + "-trained").config();
                assertThat(cfg.validation().firstProblem())
                        .as(game + " " + level)
                        .isEqualTo(100_000);
                assertThat(cfg.validation().problems()).isEqualTo(200);
                assertThat(cfg.train().steps())
                        .as(game + " " + level)
                        .isEqualTo(l2.train().steps());
                assertThat(cfg.rollout().problemsPerStep())
                        .isEqualTo(l2.rollout().problemsPerStep());
                assertThat(cfg.task().maxTurns())
                        .as(game + " " + level)
                        .isEqualTo(l2.task().maxTurns());
                assertThat(cfg.run().seed()).isEqualTo(2);
            }
        }
        table.steps = 3;
        assertThat(table.setup("sudoku", "L1", 1, "x").config().train().steps()).isEqualTo(3);
    }

    @Test
    void aCellsConfigHashChangesWithWhatTheCellIsMeasuredWith() {
        TableCommand table = new TableCommand();
        table.home = Path.of("..");
        table.evalProblems = 200;
        table.overrides = List.of();
        String l2 = table.configHash("sudoku", "L2", 1);
        assertThat(table.configHash("sudoku", "L2", 1))
                .as("the same config")
                .isEqualTo(l2)
                .hasSize(16);
        assertThat(table.configHash("sudoku", "L1", 1)).as("another level").isNotEqualTo(l2);
        assertThat(table.configHash("sudoku", "L2", 2)).as("another seed").isNotEqualTo(l2);
        assertThat(table.configHash("sokoban", "L2", 1)).as("another game").isNotEqualTo(l2);
        table.problemsPerStep = 3;
        assertThat(table.configHash("sudoku", "L2", 1)).as("another budget").isNotEqualTo(l2);
        table.problemsPerStep = null;
        table.overrides = List.of("policy.model=models/sudoku-tiny");
        assertThat(table.configHash("sudoku", "L2", 1)).as("another model").isNotEqualTo(l2);
    }

    @Test
    void anUnknownRowIsOneLineBeforeAnyWork() {
        CliTest.Result r = CliTest.run("table", "--games", "sql", "--rows", "single,teams");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("error: --rows: single, team, l1 or l2, got 'teams'");
    }
}

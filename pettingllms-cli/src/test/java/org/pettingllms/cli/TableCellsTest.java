package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An interrupted table keeps what it measured, and never mixes cells of other settings or configs. */
class TableCellsTest {
    @TempDir
    Path dir;

    @Test
    void resumingKeepsTheMeasuredCellsAndAFreshRunForgetsThem() throws Exception {
        Path file = dir.resolve("t.md.cells.jsonl");
        TableCells first = TableCells.open(file, "steps=L2", false);
        first.put("plan-path", 1, "single agent", 0.025, "c1");
        first.put("plan-path", 1, "single agent + GRPO", 0.02, "c1");
        TableCells resumed = TableCells.open(file, "steps=L2", true);
        assertThat(resumed.size()).isEqualTo(2);
        assertThat(resumed.get("plan-path", 1, "single agent", "c1")).hasValue(0.025);
        assertThat(resumed.get("plan-path", 2, "single agent", "c1")).isEmpty();
        assertThat(resumed.get("sokoban", 1, "single agent", "c1")).isEmpty();
        assertThat(TableCells.open(file, "steps=L2", false).size()).isZero();
        assertThat(file).doesNotExist();
    }

    @Test
    void aCellCutShortByACrashIsMeasuredAgainAndTheNextCellStartsItsOwnLine() throws Exception {
        Path file = dir.resolve("t.cells.jsonl");
        TableCells.open(file, "s", false).put("sudoku", 3, "team (no training)", 0.0, "c1");
        Files.writeString(file, "{\"game\":\"sudoku\",\"seed\":3,\"meth", StandardOpenOption.APPEND);
        TableCells resumed = TableCells.open(file, "s", true);
        assertThat(resumed.size()).isEqualTo(1);
        resumed.put("sudoku", 3, "single agent", 0.5, "c1");
        TableCells again = TableCells.open(file, "s", true);
        assertThat(again.size()).isEqualTo(2);
        assertThat(again.get("sudoku", 3, "single agent", "c1")).hasValue(0.5);
        assertThat(Files.readAllLines(file)).hasSize(2);
    }

    @Test
    void cellsOfOtherSettingsAreRefusedWithTheFileAndLine() throws Exception {
        Path file = dir.resolve("t.cells.jsonl");
        TableCells.open(file, "steps=20 eval=200", false).put("math", 1, "single agent", 0.0, "c1");
        assertThatThrownBy(() -> TableCells.open(file, "steps=5 eval=200", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("t.cells.jsonl line 1")
                .hasMessageContaining("steps=20 eval=200")
                .hasMessageContaining("without --resume");
        Files.writeString(file, "not json\n{}\n");
        assertThatThrownBy(() -> TableCells.open(file, "steps=5 eval=200", true))
                .hasMessageContaining("line 1: not a table cell");
        Files.writeString(file, "{}\n{}\n");
        assertThatThrownBy(() -> TableCells.open(file, "steps=5 eval=200", true))
                .hasMessageContaining("line 1: not a table cell (no game");
    }

    @Test
    void aCellMeasuredWithAnotherConfigIsRefusedWhenRead() throws Exception {
        Path file = dir.resolve("t.cells.jsonl");
        TableCells.open(file, "s", false).put("sudoku", 2, "single agent", 0.0, "aaaa");
        TableCells resumed = TableCells.open(file, "s", true);
        assertThat(resumed.get("sudoku", 2, "single agent", "aaaa")).hasValue(0.0);
        assertThatThrownBy(() -> resumed.get("sudoku", 2, "single agent", "bbbb"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sudoku seed 2 'single agent' was measured with config aaaa, now bbbb")
                .hasMessageContaining("without --resume");
        // a cell written before cells recorded their config: it cannot be shown to match, so it is not reused
        Files.writeString(
                file,
                "{\"game\":\"sudoku\",\"seed\":1,\"method\":\"single agent\",\"success\":0.5,\"settings\":\"s\"}\n");
        TableCells old = TableCells.open(file, "s", true);
        assertThat(old.size()).isEqualTo(1);
        assertThatThrownBy(() -> old.get("sudoku", 1, "single agent", "aaaa"))
                .hasMessageContaining("a config it did not record (an older table)");
    }
}

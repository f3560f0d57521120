package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An interrupted table keeps what it measured, and never mixes cells of other settings. */
class TableCellsTest {
    @TempDir
    Path dir;

    @Test
    void resumingKeepsTheMeasuredCellsAndAFreshRunForgetsThem() throws Exception {
        Path file = dir.resolve("t.md.cells.jsonl");
        TableCells first = TableCells.open(file, "steps=L2", false);
        first.put("plan-path", 1, "single agent", 0.025);
        first.put("plan-path", 1, "single agent + GRPO", 0.02);
        TableCells resumed = TableCells.open(file, "steps=L2", true);
        assertThat(resumed.size()).isEqualTo(2);
        assertThat(resumed.get("plan-path", 1, "single agent")).hasValue(0.025);
        assertThat(resumed.get("plan-path", 2, "single agent")).isEmpty();
        assertThat(resumed.get("sokoban", 1, "single agent")).isEmpty();
        assertThat(TableCells.open(file, "steps=L2", false).size()).isZero();
        assertThat(file).doesNotExist();
    }

    @Test
    void aCellCutShortByACrashIsMeasuredAgainAndTheNextCellStartsItsOwnLine() throws Exception {
        Path file = dir.resolve("t.cells.jsonl");
        TableCells.open(file, "s", false).put("sudoku", 3, "team (no training)", 0.0);
        Files.writeString(file, "{\"game\":\"sudoku\",\"seed\":3,\"meth", StandardOpenOption.APPEND);
        TableCells resumed = TableCells.open(file, "s", true);
        assertThat(resumed.size()).isEqualTo(1);
        resumed.put("sudoku", 3, "single agent", 0.5);
        TableCells again = TableCells.open(file, "s", true);
        assertThat(again.size()).isEqualTo(2);
        assertThat(again.get("sudoku", 3, "single agent")).hasValue(0.5);
        assertThat(Files.readAllLines(file)).hasSize(2);
    }

    @Test
    void cellsOfOtherSettingsAreRefusedWithTheFileAndLine() throws Exception {
        Path file = dir.resolve("t.cells.jsonl");
        TableCells.open(file, "steps=20 eval=200", false).put("math", 1, "single agent", 0.0);
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
}

package org.pettingllms.envs.sudoku;

import org.pettingllms.envs.planning.GameTasks;

/** Registers the {@code sudoku} game: {@code task.name: sudoku}, its options those of {@link SudokuGame.Options}. */
public final class SudokuTasks extends GameTasks<SudokuGame.Options> {
    public SudokuTasks() {
        super("sudoku", SudokuGame.Options.DEFAULT, SudokuGame::new);
    }
}

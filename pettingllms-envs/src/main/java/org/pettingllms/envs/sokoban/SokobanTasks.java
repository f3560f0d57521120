package org.pettingllms.envs.sokoban;

import org.pettingllms.envs.planning.GameTasks;

/** Registers the {@code sokoban} game: {@code task.name: sokoban}, its options those of {@link SokobanGame.Options}. */
public final class SokobanTasks extends GameTasks<SokobanGame.Options> {
    public SokobanTasks() {
        super("sokoban", SokobanGame.Options.DEFAULT, SokobanGame::new);
    }
}

package org.pettingllms.envs.planpath;

import org.pettingllms.envs.planning.GameTasks;

/** Registers the {@code plan-path} game: {@code task.name: plan-path}, its options those of {@link PlanPathGame.Options}. */
public final class PlanPathTasks extends GameTasks<PlanPathGame.Options> {
    public PlanPathTasks() {
        super("plan-path", PlanPathGame.Options.DEFAULT, PlanPathGame::new);
    }
}

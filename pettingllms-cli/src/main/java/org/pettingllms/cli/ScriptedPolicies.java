package org.pettingllms.cli;

import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.SolverPolicy;

/** The built-in scripted policies: until a model is trained, the demo plays with these. */
final class ScriptedPolicies {
    private ScriptedPolicies() {
    }

    static TextPolicy forTask(Task<?> task, double skill) {
        if (task instanceof PlanningTask<?, ?> planning) {
            return new SolverPolicy<>(planning.game(), skill);
        }
        throw new IllegalArgumentException("no scripted policy for task " + task.id());
    }
}

package org.pettingllms.cli;

import java.util.List;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.DatasetProblems;
import org.pettingllms.core.task.Task;
import org.pettingllms.envs.code.CodeOracle;
import org.pettingllms.envs.code.CodeTask;
import org.pettingllms.envs.data.CodeItem;
import org.pettingllms.envs.data.MathRows.MathItem;
import org.pettingllms.envs.math.MathOracle;
import org.pettingllms.envs.math.MathTask;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.SolverPolicy;

/** The built-in scripted policies: solver teams for the games, oracles (right or wrong) for the datasets. */
final class ScriptedPolicies {
    private ScriptedPolicies() {
    }

    /** A scripted team for a rollout demo: the games' solver at {@code skill}, the datasets' oracle. */
    static TextPolicy forTask(Task<?> task, double skill, List<Problem> problems) {
        if (task instanceof PlanningTask<?, ?> planning) {
            return new SolverPolicy<>(planning.game(), skill,
                    planning.toolMode() == PlanningTask.ToolMode.PROGRAM);
        }
        return oracle(task, problems, false);
    }

    /** The policy that answers the references of {@code problems} (or, {@code wrong}, never does). */
    static TextPolicy oracle(Task<?> task, List<Problem> problems, boolean wrong) {
        if (task instanceof MathTask) {
            return new MathOracle(problems.stream().map(p -> DatasetProblems.item(p, MathItem.class)).toList(), wrong);
        }
        if (task instanceof CodeTask) {
            return new CodeOracle(problems.stream().map(p -> DatasetProblems.item(p, CodeItem.class)).toList(), wrong);
        }
        throw new IllegalArgumentException("no oracle for task " + task.id() + " (oracles exist for math and code)");
    }
}

package org.pettingllms.cli;

import java.util.List;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.Task;

/** A task's own scripted team ({@link ScriptedPlay}), or one clear line saying the task has none. */
final class ScriptedPolicies {
    private ScriptedPolicies() {}

    /** The task's scripted team at {@code skill}; dataset tasks look the answers of {@code problems} up. */
    static TextPolicy forTask(Task<?> task, double skill, List<Problem> problems) {
        if (task instanceof ScriptedPlay play) {
            return play.scripted(skill, problems);
        }
        throw new IllegalArgumentException("task " + task.id() + " has no scripted policies (its task class does"
                + " not implement ScriptedPlay)");
    }

    /** The policy that answers the references of {@code problems} (or, {@code wrong}, never does). */
    static TextPolicy oracle(Task<?> task, List<Problem> problems, boolean wrong) {
        return forTask(task, wrong ? 0 : 1, problems);
    }
}

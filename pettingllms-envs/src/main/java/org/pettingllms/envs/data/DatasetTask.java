package org.pettingllms.envs.data;

import java.util.List;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.ScriptedPlay;
import org.pettingllms.core.task.Task;

/**
 * What the dataset tasks share: roles checked against the allowed line-ups, the turn cap, problems from rows of
 * type {@code T} (read from files or generated, {@link Items}), and a scripted team made of the task's oracle.
 */
public abstract class DatasetTask<S, T> implements Task<S>, ScriptedPlay {
    private final List<String> roles;
    private final int maxTurns;
    private final Items<T> items;

    /** @param lineUps the allowed role lists, the multi-agent one first */
    protected DatasetTask(List<String> roles, List<List<String>> lineUps, int maxTurns, Items<T> items) {
        if (!lineUps.contains(roles)) {
            throw new IllegalArgumentException(id() + " has roles "
                    + String.join(" or ", lineUps.stream().map(Object::toString).toList()) + ", got " + roles);
        }
        this.roles = List.copyOf(roles);
        this.maxTurns = maxTurns;
        this.items = items;
    }

    @Override
    public final List<String> roles() {
        return roles;
    }

    @Override
    public final int maxTurns() {
        return maxTurns;
    }

    @Override
    public final ProblemSource problems(long seed) {
        return items.problems(id(), seed);
    }

    /** Where the rows come from. */
    protected final Items<T> items() {
        return items;
    }

    /** The dataset row of a problem. */
    protected final T row(Problem problem) {
        return items.item(problem);
    }

    /** The oracle that knows the references of {@code problems}, right with probability {@code skill}. */
    @Override
    public final TextPolicy scripted(double skill, List<Problem> problems) {
        List<T> items = problems.stream().map(this::row).toList();
        return TextPolicy.mix(oracle(items, false), oracle(items, true), skill);
    }

    /** The policy that answers the references of {@code items} (or, {@code wrong}, never does). */
    protected abstract TextPolicy oracle(List<T> items, boolean wrong);

    protected final String checkRole(String role) {
        if (!roles.contains(role)) {
            throw new IllegalArgumentException("unknown role '" + role + "' for " + id() + "; roles are " + roles);
        }
        return role;
    }
}

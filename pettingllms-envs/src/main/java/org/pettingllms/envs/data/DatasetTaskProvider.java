package org.pettingllms.envs.data;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.TaskProvider;

/**
 * What the dataset tasks' providers share (as {@code GameTasks} is the planning games'): the task's name, its options
 * bound from {@code task.options} over the defaults, and its roles ({@code task.roles}, else the team's). A provider
 * makes its task from these.
 *
 * @param <O> the task's options record
 * @param <K> the task
 */
public abstract class DatasetTaskProvider<O extends DatasetOptions, K extends Task<?>> implements TaskProvider {
    private final String name;
    private final O defaults;
    private final List<String> team;

    /**
     * @param name     the task name configs use ({@code task.name})
     * @param defaults the options where {@code task.options} sets none
     * @param team     the roles where {@code task.roles} names none
     */
    protected DatasetTaskProvider(String name, O defaults, List<String> team) {
        this.name = name;
        this.defaults = defaults;
        this.team = List.copyOf(team);
    }

    @Override
    public final Set<String> names() {
        return Set.of(name);
    }

    @Override
    public final K create(RunConfig.TaskSpec spec) {
        return create(TaskOptions.bind(spec, defaults), TaskOptions.roles(spec, team), spec.maxTurns());
    }

    /** The task of bound {@code options} with these roles and turn cap. */
    protected abstract K create(O options, List<String> roles, int maxTurns);
}

package org.pettingllms.core.task;

import java.util.ServiceLoader;
import java.util.TreeSet;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;

/** Finds the {@link TaskProvider} for a task name. */
public final class Tasks {
    private Tasks() {}

    public static Task<?> create(RunConfig.TaskSpec spec) {
        TreeSet<String> known = new TreeSet<>();
        for (TaskProvider p : ServiceLoader.load(TaskProvider.class)) {
            if (p.names().contains(spec.name())) {
                return p.create(spec);
            }
            known.addAll(p.names());
        }
        throw new ConfigException("config key 'task.name': unknown task '" + spec.name() + "'; available: " + known);
    }
}

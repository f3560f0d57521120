package org.pettingllms.core.task;

import java.util.Set;
import org.pettingllms.core.config.RunConfig;

/**
 * Makes tasks by name from a run's {@code task} section. Providers are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.pettingllms.core.task.TaskProvider}), so a jar on the class path can add tasks.
 */
public interface TaskProvider {
    /** Task names this provider makes, for example {@code plan-path}. */
    Set<String> names();

    /** A task for {@code spec}; options errors name the key {@code task.options.<key>}. */
    Task<?> create(RunConfig.TaskSpec spec);
}

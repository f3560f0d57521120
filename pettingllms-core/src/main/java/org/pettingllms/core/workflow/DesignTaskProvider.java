package org.pettingllms.core.workflow;

import java.util.Set;
import org.pettingllms.core.config.RunConfig;

/**
 * Makes design tasks by name ({@code task.name}), found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.pettingllms.core.workflow.DesignTaskProvider}), as tasks are.
 */
public interface DesignTaskProvider {
    /** Names this provider makes, for example {@code design-math}. */
    Set<String> names();

    /** A design task for {@code spec} (its options without {@code design}); errors name {@code task.options.<key>}. */
    DesignTask create(RunConfig.TaskSpec spec);
}

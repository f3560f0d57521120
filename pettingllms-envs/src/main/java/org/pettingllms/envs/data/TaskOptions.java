package org.pettingllms.envs.data;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;

/**
 * How every task provider here reads its part of a run's {@code task} section: its options bound over its defaults
 * (a wrong or unknown key named {@code task.options.<key>}), and its roles.
 */
public final class TaskOptions {
    private TaskOptions() {}

    /** {@code task.options} bound over {@code defaults}, an instance of the provider's options record. */
    public static <O> O bind(RunConfig.TaskSpec spec, O defaults) {
        return bind(spec.options(), defaults);
    }

    /** {@code options} (the task's, less any a provider reads itself) bound over {@code defaults}. */
    public static <O> O bind(Map<String, Object> options, O defaults) {
        return ConfigLoader.bindOptions(options, defaults, "task.options.", "task.options");
    }

    /** The roles {@code task.roles} names, or {@code team} where it names none. */
    public static List<String> roles(RunConfig.TaskSpec spec, List<String> team) {
        return spec.roles().isEmpty() ? team : spec.roles();
    }
}

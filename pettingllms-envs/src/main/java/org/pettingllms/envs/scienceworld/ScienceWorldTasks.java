package org.pettingllms.envs.scienceworld;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.TaskOptions;

/** Makes {@code scienceworld} from {@code task.options}: the jar, the tasks, the simplifications. */
public final class ScienceWorldTasks implements TaskProvider {
    /**
     * @param jar             ScienceWorld's jar (its Python package ships it as {@code scienceworld/scienceworld-*.jar})
     * @param tasks           task names (empty: all the jar has)
     * @param simplifications ScienceWorld's simplification string ({@code easy}, or a comma-separated list)
     */
    public record ScienceWorldOptions(String jar, List<String> tasks, String simplifications) {
        public static final ScienceWorldOptions DEFAULT = new ScienceWorldOptions("", List.of(), "easy");
    }

    @Override
    public Set<String> names() {
        return Set.of("scienceworld");
    }

    @Override
    public ScienceWorldTask create(RunConfig.TaskSpec spec) {
        ScienceWorldOptions o = TaskOptions.bind(spec, ScienceWorldOptions.DEFAULT);
        if (o.jar().isBlank()) {
            throw new ConfigException("config key 'task.options.jar': name ScienceWorld's jar (pip install"
                    + " scienceworld ships it as scienceworld/scienceworld-*.jar); nothing else of Python is needed");
        }
        List<String> roles = TaskOptions.roles(spec, ScienceWorldTask.TEAM);
        return new ScienceWorldTask(
                roles, spec.maxTurns(), ScienceWorldJar.loader(Path.of(o.jar())), o.tasks(), o.simplifications());
    }
}

package org.pettingllms.envs.science;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.TaskOptions;

/** Makes {@code science} ({@code science-v1}); it has no options. */
public final class ScienceTasks implements TaskProvider {
    @Override
    public Set<String> names() {
        return Set.of("science");
    }

    @Override
    public ScienceTask create(RunConfig.TaskSpec spec) {
        if (!spec.options().isEmpty()) {
            throw new ConfigException("config key 'task.options': science has no options, got "
                    + spec.options().keySet());
        }
        List<String> roles = TaskOptions.roles(spec, ScienceTask.TEAM);
        if (!roles.equals(ScienceTask.TEAM) && !roles.equals(List.of(ScienceTask.THEORIST))) {
            throw new ConfigException("config key 'task.roles': science's roles are " + ScienceTask.TEAM
                    + " (the team) or [theorist] (the single agent), got " + roles);
        }
        return new ScienceTask(roles, spec.maxTurns());
    }
}

package org.pettingllms.envs.household;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.TaskOptions;

/** Makes {@code household} ({@code household-v1}) from {@code task.options}: the room sizes. */
public final class HouseholdTasks implements TaskProvider {
    /**
     * @param cabinets    most cabinets in a room (1 to 5)
     * @param drawers     most drawers (0 to 5)
     * @param distractors most objects of other kinds than the goal's (1 to 12)
     */
    public record HouseholdOptions(int cabinets, int drawers, int distractors) {
        public static final HouseholdOptions DEFAULT = new HouseholdOptions(2, 1, 4);
    }

    @Override
    public Set<String> names() {
        return Set.of("household");
    }

    @Override
    public HouseholdTask create(RunConfig.TaskSpec spec) {
        HouseholdOptions o = TaskOptions.bind(spec, HouseholdOptions.DEFAULT);
        RoomGenerator.Sizes sizes;
        try {
            sizes = new RoomGenerator.Sizes(o.cabinets(), o.drawers(), o.distractors());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config key 'task.options': " + e.getMessage());
        }
        List<String> roles = TaskOptions.roles(spec, HouseholdTask.TEAM);
        if (!roles.equals(HouseholdTask.TEAM) && !roles.equals(List.of(HouseholdTask.ACTOR))) {
            throw new ConfigException("config key 'task.roles': household's roles are " + HouseholdTask.TEAM
                    + " (the team) or [actor] (the single agent), got " + roles);
        }
        return new HouseholdTask(roles, spec.maxTurns(), sizes);
    }
}

package org.pettingllms.cli.toy;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.task.TaskProvider;

/** The toy task's provider, found through this test module's services line. */
public final class ToyTasks implements TaskProvider {
    @Override
    public Set<String> names() {
        return Set.of("toy-sum");
    }

    @Override
    public Task<?> create(RunConfig.TaskSpec spec) {
        return new SumTask(spec.roles().isEmpty() ? List.of(SumTask.ADDER, SumTask.CHECKER) : spec.roles());
    }
}

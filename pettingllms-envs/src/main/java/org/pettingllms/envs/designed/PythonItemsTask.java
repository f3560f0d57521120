package org.pettingllms.envs.designed;

import java.util.Map;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.workflow.DesignTask;
import org.pettingllms.core.workflow.WorkflowTool;
import org.pettingllms.envs.data.Items;

/**
 * What the design tasks here share: the problems are the rows of {@link Items} (files or a generator), each posed with
 * the sandboxed Python runner as the tool {@code python} ({@link DesignMathTasks#pythonTool}).
 *
 * @param <T> the row type
 */
interface PythonItemsTask<T> extends DesignTask {
    /** Where the rows come from. */
    Items<T> items();

    /** The tool {@code python}. */
    WorkflowTool python();

    /** A row as designer and executors read it, with {@link #tools}. */
    Posed posed(T item);

    @Override
    default ProblemSource problems(long seed) {
        return items().problems(id(), seed);
    }

    @Override
    default Posed pose(Problem problem) {
        return posed(items().item(problem));
    }

    /** The tools every problem is posed with. */
    default Map<String, WorkflowTool> tools() {
        return Map.of("python", python());
    }
}

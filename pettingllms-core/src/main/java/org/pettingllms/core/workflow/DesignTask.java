package org.pettingllms.core.workflow;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource;

/**
 * Problems for a designer and the executors of its workflows (docs/WORKFLOWS.md): what every call reads, the tools
 * an agent may be given, and how the final answer is read and scored. {@link #pose} is the one method a new kind of
 * problem implements; the rest describe the task.
 */
public interface DesignTask {
    /** Versioned id, bumped when what is posed or how it is scored changes. */
    String id();

    /** The executor roles a design may name: each is a policy. */
    List<String> executorRoles();

    /** Where the problems come from. */
    ProblemSource problems(long seed);

    /** One problem as designer and executors read it. */
    Posed pose(Problem problem);

    /**
     * A posed problem.
     *
     * @param text     the problem as every call reads it
     * @param kind     the problem's kind (what reports break success and design shapes down by)
     * @param tools    the tools an agent may be given, by name
     * @param answerOf the answer in an output ({@code ""} for none): what votes compare and {@code score} reads
     * @param score    an answer's score in [0, 1]; 1 is solved
     */
    record Posed(
            String text,
            String kind,
            Map<String, WorkflowTool> tools,
            Function<String, String> answerOf,
            ToDoubleFunction<String> score) {
        public Posed {
            tools = Map.copyOf(tools);
        }
    }
}

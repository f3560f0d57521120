package org.pettingllms.envs.designed;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.workflow.DesignTask;
import org.pettingllms.core.workflow.DesignTaskProvider;
import org.pettingllms.core.workflow.WorkflowTool;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.data.TaskOptions;
import org.pettingllms.envs.math.AnswerChecker;
import org.pettingllms.envs.math.AnswerExtractor;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.math.MathTasks;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * {@code design-math} ({@code design-math-v1}, docs/WORKFLOWS.md): math problems for a designer and its workflows'
 * executors, from the math task's sources (data files, or generated word problems), with the sandboxed Python runner
 * as the tool {@code python} (what the program prints is its output). An execution's answer is read from its final
 * output as the math task reads a model's answer ({@link AnswerExtractor}) and scored 1 when it is the reference's
 * ({@link AnswerChecker}), else 0. The executor roles are {@code task.roles} (default solver, critic, judge).
 */
public final class DesignMathTasks implements DesignTaskProvider {
    public static final String NAME = "design-math";
    /** What a tool's output may add to the next prompt. */
    static final int MAX_TOOL_OUTPUT = 2000;

    /**
     * @param train              training data file (JSONL, JSON or Parquet); empty for evaluation only
     * @param test               test data file
     * @param generator          instead of files, generated problems: {@code arithmetic} (the math task's word problems)
     * @param toolTimeoutSeconds CPU seconds a program may use
     * @param sandboxSlots       programs run at once; 0: one per CPU
     */
    public record Options(String train, String test, String generator, int toolTimeoutSeconds, int sandboxSlots)
            implements DatasetOptions {
        public static final Options DEFAULT = new Options("", "", "", 10, 0);
    }

    @Override
    public Set<String> names() {
        return Set.of(NAME);
    }

    @Override
    public DesignTask create(RunConfig.TaskSpec spec) {
        Options o = TaskOptions.bind(spec, Options.DEFAULT);
        List<String> roles = TaskOptions.roles(spec, List.of("solver", "critic", "judge"));
        Items<MathItem> items = MathTasks.items(o);
        WorkflowTool python = pythonTool(o.sandboxSlots(), o.toolTimeoutSeconds());
        return new Task(items, roles, python, o.generator().isBlank() ? "math" : o.generator());
    }

    /**
     * The sandboxed Python runner a design's agents may use: {@code slots} programs at once (0: one per CPU), each
     * with the work limits of {@code timeoutSeconds} of CPU time; a node sees what the program printed.
     */
    static WorkflowTool pythonTool(int slots, int timeoutSeconds) {
        Sandbox box = Sandbox.create(SandboxLimits.DEFAULT, Sandbox.slots(slots));
        SandboxLimits limits = SandboxLimits.DEFAULT.forWork(Duration.ofSeconds(timeoutSeconds));
        return code -> output(box.run(code, "", limits));
    }

    /** What a program's run shows the next node: what it printed, else why it failed; bounded. */
    static String output(Execution e) {
        String shown = e.ok() ? e.stdout() : e.summary();
        return shown.length() > MAX_TOOL_OUTPUT ? shown.substring(0, MAX_TOOL_OUTPUT) + "\n(output cut)" : shown;
    }

    record Task(Items<MathItem> items, List<String> roles, WorkflowTool python, String kind)
            implements PythonItemsTask<MathItem> {
        @Override
        public String id() {
            return NAME + "-v1";
        }

        @Override
        public List<String> executorRoles() {
            return roles;
        }

        @Override
        public Posed posed(MathItem item) {
            return new Posed(
                    item.question(),
                    kind,
                    tools(),
                    text -> AnswerExtractor.extract(text).orElse(""),
                    answer -> AnswerChecker.equivalent(answer, item.answer()) ? 1 : 0);
        }
    }
}

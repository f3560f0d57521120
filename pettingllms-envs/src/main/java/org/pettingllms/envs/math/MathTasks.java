package org.pettingllms.envs.math;

import java.time.Duration;
import java.util.List;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.DatasetTaskProvider;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** Makes the math task by name: {@code math} ({@code math-v1}), from data files or generated word problems. */
public final class MathTasks extends DatasetTaskProvider<MathTasks.MathOptions, MathTask> {
    /**
     * @param train              training data file (JSONL, JSON or Parquet); empty for evaluation only
     * @param test               test data file
     * @param generator          instead of files, generated problems: {@code arithmetic} ({@link WordProblems})
     * @param toolTimeoutSeconds wall-clock limit of the tool's program
     * @param sandboxSlots       programs run at once; 0: one per CPU
     */
    public record MathOptions(String train, String test, String generator, int toolTimeoutSeconds, int sandboxSlots)
            implements DatasetOptions {
        public static final MathOptions DEFAULT = new MathOptions("", "", "", 20, 0);
    }

    public MathTasks() {
        super("math", MathOptions.DEFAULT, List.of(MathTask.TOOL, MathTask.REASONER));
    }

    @Override
    protected MathTask create(MathOptions o, List<String> roles, int maxTurns) {
        Sandbox box = roles.contains(MathTask.TOOL)
                ? Sandbox.create(SandboxLimits.DEFAULT, Sandbox.slots(o.sandboxSlots()))
                : null;
        return new MathTask(roles, maxTurns, items(o), box, Duration.ofSeconds(o.toolTimeoutSeconds()));
    }

    /** The math problems {@code o} names: data files' rows, or generated word problems ({@link WordProblems}). */
    public static Items<MathItem> items(DatasetOptions o) {
        return DatasetSources.items(
                o, WordProblems.NAME, seed -> WordProblems.of(seed).item(), MathRows::load, MathItem.class);
    }
}

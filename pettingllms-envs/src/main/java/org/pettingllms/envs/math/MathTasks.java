package org.pettingllms.envs.math;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.math.MathRows.MathItem;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** Makes the math task by name: {@code math} ({@code math-v1}), from data files or generated word problems. */
public final class MathTasks implements TaskProvider {
    /**
     * @param train              training data file (JSONL, JSON or Parquet); empty for evaluation only
     * @param test               test data file
     * @param generator          instead of files, generated problems: {@code arithmetic} ({@link WordProblems})
     * @param toolTimeoutSeconds wall-clock limit of the tool's program
     * @param sandboxSlots       programs run at once; 0: one per CPU
     */
    public record MathOptions(String train, String test, String generator, int toolTimeoutSeconds, int sandboxSlots) {
        public static final MathOptions DEFAULT = new MathOptions("", "", "", 20, 0);
    }

    @Override
    public Set<String> names() {
        return Set.of("math");
    }

    @Override
    public MathTask create(RunConfig.TaskSpec spec) {
        MathOptions o = ConfigLoader.bindOptions(spec.options(), MathOptions.DEFAULT, "task.options.", "task.options");
        List<String> roles = spec.roles().isEmpty() ? List.of(MathTask.TOOL, MathTask.REASONER) : spec.roles();
        Sandbox box = roles.contains(MathTask.TOOL)
                ? Sandbox.create(SandboxLimits.DEFAULT, Sandbox.slots(o.sandboxSlots()))
                : null;
        return new MathTask(roles, spec.maxTurns(), items(o), box, Duration.ofSeconds(o.toolTimeoutSeconds()));
    }

    private static Items<MathItem> items(MathOptions o) {
        return o.generator().isBlank()
                ? DatasetSources.files(o.train(), o.test(), MathRows::load, MathItem.class)
                : DatasetSources.generated(
                        o.generator(),
                        WordProblems.NAME,
                        o.train(),
                        o.test(),
                        seed -> WordProblems.of(seed).item());
    }
}

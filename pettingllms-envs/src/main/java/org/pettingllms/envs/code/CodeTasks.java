package org.pettingllms.envs.code;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** Makes the code task by name: {@code code} ({@code code-v1}), from data files or generated function tasks. */
public final class CodeTasks implements TaskProvider {
    /**
     * @param train          training data file (JSONL, JSON or Parquet); empty for evaluation only
     * @param test           test data file
     * @param generator      instead of files, generated problems: {@code functions} ({@link FunctionTasks})
     * @param timeoutSeconds wall-clock limit of one program on one test
     * @param maxTests       ground-truth tests run per program (the first ones)
     * @param maxTesterTests tests taken from one tester answer
     * @param sandboxSlots   programs run at once; 0: one per CPU
     */
    public record CodeOptions(
            String train,
            String test,
            String generator,
            int timeoutSeconds,
            int maxTests,
            int maxTesterTests,
            int sandboxSlots) {
        public static final CodeOptions DEFAULT = new CodeOptions("", "", "", 5, 20, 5, 0);

        public CodeOptions {
            if (timeoutSeconds < 1 || maxTests < 1 || maxTesterTests < 1 || sandboxSlots < 0) {
                throw new IllegalArgumentException(
                        "timeoutSeconds, maxTests and maxTesterTests must be >= 1," + " sandboxSlots >= 0");
            }
        }
    }

    @Override
    public Set<String> names() {
        return Set.of("code");
    }

    @Override
    public CodeTask create(RunConfig.TaskSpec spec) {
        CodeOptions o = ConfigLoader.bindOptions(spec.options(), CodeOptions.DEFAULT, "task.options.", "task.options");
        List<String> roles = spec.roles().isEmpty() ? List.of(CodeTask.CODER, CodeTask.TESTER) : spec.roles();
        Sandbox box = Sandbox.create(SandboxLimits.DEFAULT, Sandbox.slots(o.sandboxSlots()));
        CodeRunner runner = new CodeRunner(box, box.limits().forWork(Duration.ofSeconds(o.timeoutSeconds())));
        Items<CodeItem> items = o.generator().isBlank()
                ? DatasetSources.files(o.train(), o.test(), CodeRows::load, CodeItem.class)
                : DatasetSources.generated(
                        o.generator(),
                        FunctionTasks.NAME,
                        o.train(),
                        o.test(),
                        seed -> FunctionTasks.of(seed).item());
        return new CodeTask(roles, spec.maxTurns(), items, runner, o.maxTests(), o.maxTesterTests());
    }
}

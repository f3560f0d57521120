package org.pettingllms.envs.code;

import java.time.Duration;
import java.util.List;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.DatasetTaskProvider;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/** Makes the code task by name: {@code code} ({@code code-v1}), from data files or generated function tasks. */
public final class CodeTasks extends DatasetTaskProvider<CodeTasks.CodeOptions, CodeTask> {
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
            int sandboxSlots)
            implements DatasetOptions {
        public static final CodeOptions DEFAULT = new CodeOptions("", "", "", 5, 20, 5, 0);

        public CodeOptions {
            if (timeoutSeconds < 1 || maxTests < 1 || maxTesterTests < 1 || sandboxSlots < 0) {
                throw new IllegalArgumentException(
                        "timeoutSeconds, maxTests and maxTesterTests must be >= 1," + " sandboxSlots >= 0");
            }
        }
    }

    public CodeTasks() {
        super("code", CodeOptions.DEFAULT, List.of(CodeTask.CODER, CodeTask.TESTER));
    }

    @Override
    protected CodeTask create(CodeOptions o, List<String> roles, int maxTurns) {
        Sandbox box = Sandbox.create(SandboxLimits.DEFAULT, Sandbox.slots(o.sandboxSlots()));
        CodeRunner runner = new CodeRunner(box, box.limits().forWork(Duration.ofSeconds(o.timeoutSeconds())));
        Items<CodeItem> items = DatasetSources.items(
                o, FunctionTasks.NAME, seed -> FunctionTasks.of(seed).item(), CodeRows::load, CodeItem.class);
        return new CodeTask(roles, maxTurns, items, runner, o.maxTests(), o.maxTesterTests());
    }
}

package org.pettingllms.envs.verilog;

import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.Items;

/**
 * Makes the hardware design task by name: {@code verilog} ({@code verilog-v1}), on generated circuits or on
 * VerilogEval-layout files (evaluation).
 */
public final class VerilogTasks implements TaskProvider {
    /**
     * @param generator      the generated problems: {@code circuits} ({@link Circuits}); empty for dataset files
     * @param train          VerilogEval-layout problems to train on (a folder or a JSON/JSONL file); empty for none
     * @param test           the problems to test on
     * @param timeoutSeconds how long one compile and simulation may run
     * @param maxTesterTests vectors taken from one tester answer
     * @param sandboxSlots   simulations run at once; 0: one per CPU
     */
    public record VerilogOptions(
            String generator, String train, String test, int timeoutSeconds, int maxTesterTests, int sandboxSlots) {
        public static final VerilogOptions DEFAULT = new VerilogOptions(Circuits.NAME, "", "", 10, 16, 0);

        public VerilogOptions {
            if (timeoutSeconds < 1 || maxTesterTests < 1 || sandboxSlots < 0) {
                throw new IllegalArgumentException("timeoutSeconds and maxTesterTests must be >= 1, sandboxSlots >= 0");
            }
        }
    }

    @Override
    public Set<String> names() {
        return Set.of("verilog");
    }

    @Override
    public VerilogTask create(RunConfig.TaskSpec spec) {
        VerilogOptions o =
                ConfigLoader.bindOptions(spec.options(), VerilogOptions.DEFAULT, "task.options.", "task.options");
        List<String> roles = spec.roles().isEmpty() ? List.of(VerilogTask.DESIGNER, VerilogTask.TESTER) : spec.roles();
        Items<VerilogItem> items = o.generator().isBlank()
                ? DatasetSources.files(o.train(), o.test(), VerilogEvalRows::load, VerilogItem.class)
                : DatasetSources.generated(o.generator(), Circuits.NAME, o.train(), o.test(), Circuits::item);
        Icarus icarus = Icarus.open(
                o.sandboxSlots(), Icarus.LIMITS.withWallTime(java.time.Duration.ofSeconds(o.timeoutSeconds())));
        return new VerilogTask(roles, spec.maxTurns(), items, icarus, o.maxTesterTests());
    }
}

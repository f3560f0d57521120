package org.pettingllms.envs.verilog;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.DatasetTaskProvider;
import org.pettingllms.envs.data.Items;

/**
 * Makes the hardware design task by name: {@code verilog} ({@code verilog-v1}), on generated circuits or on
 * VerilogEval-layout files (evaluation).
 */
public final class VerilogTasks extends DatasetTaskProvider<VerilogTasks.VerilogOptions, VerilogTask> {
    /**
     * @param generator      the generated problems: {@code circuits} ({@link Circuits}); empty for dataset files
     * @param train          VerilogEval-layout problems to train on (a folder or a JSON/JSONL file); empty for none
     * @param test           the problems to test on
     * @param timeoutSeconds how long one compile and simulation may run
     * @param maxTesterTests vectors taken from one tester answer
     * @param sandboxSlots   simulations run at once; 0: one per CPU
     * @param kinds          the generated circuits' kinds ({@link Circuits.Kind}: table, arithmetic, counter, shift,
     *                       edge); empty for all
     */
    public record VerilogOptions(
            String generator,
            String train,
            String test,
            int timeoutSeconds,
            int maxTesterTests,
            int sandboxSlots,
            List<String> kinds)
            implements DatasetOptions {
        public static final VerilogOptions DEFAULT = new VerilogOptions(Circuits.NAME, "", "", 10, 16, 0, List.of());

        public VerilogOptions {
            if (timeoutSeconds < 1 || maxTesterTests < 1 || sandboxSlots < 0) {
                throw new IllegalArgumentException("timeoutSeconds and maxTesterTests must be >= 1, sandboxSlots >= 0");
            }
            kinds = kinds == null ? List.of() : List.copyOf(kinds);
        }

        Set<Circuits.Kind> circuitKinds() {
            Set<Circuits.Kind> out = EnumSet.noneOf(Circuits.Kind.class);
            for (String k : kinds) {
                out.add(Circuits.Kind.parse(k, "task.options.kinds"));
            }
            return out;
        }
    }

    public VerilogTasks() {
        super("verilog", VerilogOptions.DEFAULT, List.of(VerilogTask.DESIGNER, VerilogTask.TESTER));
    }

    @Override
    protected VerilogTask create(VerilogOptions o, List<String> roles, int maxTurns) {
        if (o.generator().isBlank() && !o.kinds().isEmpty()) {
            throw new ConfigException("config key 'task.options.kinds': kinds choose generated circuits; dataset files"
                    + " have none (set task.options.generator: circuits, or remove kinds)");
        }
        Items<VerilogItem> items = DatasetSources.items(
                o, Circuits.NAME, Circuits.items(o.circuitKinds()), VerilogEvalRows::load, VerilogItem.class);
        Icarus icarus =
                Icarus.open(o.sandboxSlots(), Icarus.LIMITS.forWork(java.time.Duration.ofSeconds(o.timeoutSeconds())));
        return new VerilogTask(roles, maxTurns, items, icarus, o.maxTesterTests());
    }
}

package org.pettingllms.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The run config argument and its {@code --set} overrides, shared by the commands that run a config. */
final class RunOptions {
    /** What --deterministic sets (after the --set overrides, so it wins). */
    static final List<String> DETERMINISTIC = List.of("engine.learnerThreads=1", "rollout.batching=lockstep");

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "CONFIG",
            description = "run config (YAML); default: configs/plan-path/L2.yaml")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override a config value, e.g. rollout.k=8")
    List<String> overrides = new ArrayList<>();

    @Option(
            names = "--deterministic",
            description = "a run that the same seed repeats bit for bit: the learner on one PyTorch thread"
                    + " (engine.learnerThreads=1) and rollouts in lockstep (rollout.batching=lockstep); docs/USAGE.md,"
                    + " \"Repeatable runs\"")
    boolean deterministic;

    /** The command this is mixed into, for its environment. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    RunSetup load() {
        return load(HubResolver.ModelFiles.ALL);
    }

    RunSetup load(HubResolver.ModelFiles need) {
        Map<String, String> env = Main.env(command);
        List<String> all = new ArrayList<>(overrides);
        if (deterministic) {
            all.addAll(DETERMINISTIC);
        }
        return RunSetup.load(config != null ? config : RunSetup.defaultConfig(env), all, env, need);
    }
}

package org.pettingllms.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The run config argument and its {@code --set} overrides, shared by the commands that run a config. */
final class RunOptions {
    @Parameters(index = "0", arity = "0..1", paramLabel = "CONFIG",
            description = "run config (YAML); default: configs/plan-path/L2.yaml")
    Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "override a config value, e.g. rollout.k=8")
    List<String> overrides = new ArrayList<>();

    RunSetup load() {
        return RunSetup.load(config != null ? config : RunSetup.defaultConfig(), overrides);
    }
}

package org.pettingllms.cli;

import org.pettingllms.core.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code pettingllms} command. */
@Command(name = "pettingllms", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "On-policy reinforcement learning of multi-agent LLM systems with AT-GRPO.",
        subcommands = {TrainCommand.class, EvaluateCommand.class, SftCommand.class, ReportCommand.class, RolloutCommand.class, BenchCommand.class, TableCommand.class, ServeCommand.class, CommandLine.HelpCommand.class})
public final class Main {
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line; returns the exit code (0 ok, 1 failure, 2 bad usage or configuration). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line: exit codes 2 for configuration and usage errors, 1 for failures. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof ConfigException || ex instanceof IllegalArgumentException) {
                cmd.getErr().println("error: " + ex.getMessage());
                return 2;
            }
            cmd.getErr().println("error: " + ex);
            ex.printStackTrace(cmd.getErr());
            return 1;
        });
        return cli;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"pettingllms " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}

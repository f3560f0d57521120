package org.pettingllms.cli;

import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.hub.HubException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/** The {@code pettingllms} command. */
@Command(
        name = "pettingllms",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "On-policy reinforcement learning of multi-agent LLM systems with AT-GRPO.",
        subcommands = {
            TrainCommand.class,
            EvaluateCommand.class,
            SftCommand.class,
            ReportCommand.class,
            RolloutCommand.class,
            BenchCommand.class,
            TableCommand.class,
            ServeCommand.class,
            FetchCommand.class,
            CheckAnswerCommand.class,
            CheckSqlCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main {
    @CommandLine.Option(
            names = "--debug",
            scope = CommandLine.ScopeType.INHERIT,
            description = "print the stack trace of an error (otherwise one line)")
    boolean debug;

    /** The environment the commands read (PETTINGLLMS_HOME, the HF_* variables): the process's, or a test's. */
    private final Map<String, String> env;

    Main(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The environment of the command {@code spec} belongs to; the process's when it runs outside a Main. */
    static Map<String, String> env(CommandSpec spec) {
        return spec != null && spec.root().userObject() instanceof Main m ? m.env : System.getenv();
    }

    /** Runs the command line; returns the exit code (0 ok, 1 failure, 2 bad usage or configuration). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line: exit codes 2 for configuration and usage errors, 1 for failures. */
    static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /** The command line over the environment {@code env} (tests pass their own). */
    static CommandLine commandLine(Map<String, String> env) {
        CommandLine cli = new CommandLine(new Main(env)).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            boolean usage = ex instanceof ConfigException
                    || ex instanceof IllegalArgumentException
                    || (ex instanceof HubException h
                            && (h.reason() == HubException.Reason.BAD_REQUEST
                                    || h.reason() == HubException.Reason.SETTINGS));
            cmd.getErr().println("error: " + oneLine(ex));
            if (debug(parsed)) {
                ex.printStackTrace(cmd.getErr());
            } else if (!usage && !(ex instanceof HubException)) {
                // a HubException says all there is to say (what failed and what to do); others may need the trace
                cmd.getErr().println("(run again with --debug for the stack trace)");
            }
            return usage ? 2 : 1;
        });
        return cli;
    }

    /** Whether {@code --debug} was given to the command or any of its subcommands. */
    static boolean debug(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--debug")) {
                return true;
            }
        }
        return false;
    }

    /**
     * What went wrong, for people: the message (a missing file is named as such), the innermost cause's when the
     * outer one only wraps it, the exception's kind when there is no message.
     */
    static String oneLine(Throwable ex) {
        Throwable t = ex;
        while (t.getCause() != null
                && (t.getMessage() == null || t.getMessage().equals(t.getCause().toString()))) {
            t = t.getCause();
        }
        String msg;
        if (t instanceof NoSuchFileException f) {
            msg = "no such file: " + f.getFile();
        } else if (t instanceof AccessDeniedException f) {
            msg = "permission denied: " + f.getFile();
        } else {
            msg = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        }
        return msg.lines().findFirst().orElse(msg);
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"pettingllms " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}

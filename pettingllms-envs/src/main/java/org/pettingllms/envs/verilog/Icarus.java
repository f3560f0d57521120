package org.pettingllms.envs.verilog;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * Icarus Verilog in the sandbox: {@code iverilog} compiles the sources, the sources are removed, {@code vvp} runs the
 * compiled simulation; both under the sandbox's limits (time, memory, file size, output, no network, no file outside
 * the run's directory). Icarus has no {@code $system}; file tasks see only the run's directory and the read-only
 * system folders. Whatever the design does, {@link #simulate} returns a {@link Simulation}.
 */
public final class Icarus {
    /** What {@code verilog-v1} needs installed, said when it is missing. */
    static final String INSTALL = "verilog-v1 needs Icarus Verilog (iverilog and vvp on the PATH): install it, for"
            + " example: apt-get install iverilog";

    /** Limits of one compile and simulation: small designs, a short clock, a cap on dump files and prints. */
    public static final SandboxLimits LIMITS = new SandboxLimits(
                    Duration.ofSeconds(10), 10, 1L << 30, 4L << 20, 32, 512 << 10)
            .forWork(Duration.ofSeconds(10));

    private static final int COMPILE_FAILED = 97;

    /** How a simulation ended. */
    public enum Status {
        /** compiled and ran to its end */
        OK,
        /** the sources did not compile */
        COMPILE_ERROR,
        /** compiled, but the simulation could not start or failed (an unknown system task, a runtime error) */
        RUNTIME_ERROR,
        /** a limit stopped it (time, CPU, memory, output, file size) */
        LIMIT
    }

    /**
     * @param log the compiler's or simulator's messages (stderr), for a designer to read
     */
    public record Simulation(Status status, String stdout, String log, long wallMs) {
        public boolean ok() {
            return status == Status.OK;
        }

        /** One line: the status and the first message. */
        public String summary() {
            String first = log.strip().lines().findFirst().orElse("");
            return status.name().toLowerCase().replace('_', ' ') + (first.isEmpty() ? "" : ": " + first);
        }
    }

    private final Sandbox box;
    private final SandboxLimits limits;

    private Icarus(Sandbox box, SandboxLimits limits) {
        this.box = box;
        this.limits = limits;
    }

    /**
     * Icarus in a sandbox of {@code slots} concurrent runs; checks that it is installed and compiles a trivial module.
     *
     * @throws ConfigException naming what to install when it is missing or does not run
     */
    public static Icarus open(int slots, SandboxLimits limits) {
        return open(slots, limits, TOOL_DIRS);
    }

    /** The folders the sandbox's PATH holds: where the tools must be. */
    static final List<String> TOOL_DIRS = List.of(Sandbox.PROGRAM_PATH.split(":"));

    static Icarus open(int slots, SandboxLimits limits, List<String> toolDirs) {
        for (String tool : List.of("iverilog", "vvp")) {
            if (toolDirs.stream().noneMatch(d -> java.nio.file.Files.isExecutable(java.nio.file.Path.of(d, tool)))) {
                throw new ConfigException(INSTALL + " (" + tool + " not found in " + String.join(", ", toolDirs) + ")");
            }
        }
        Icarus icarus = new Icarus(Sandbox.forTools(limits, Sandbox.slots(slots)), limits);
        Simulation probe = icarus.simulate(
                Map.of("probe.v", "module probe; initial begin $display(\"%0d\", 6 * 7); $finish; end endmodule\n"),
                "probe");
        if (!probe.ok() || !probe.stdout().strip().equals("42")) {
            throw new ConfigException(INSTALL + " (it did not run in the sandbox: " + probe.summary() + ")");
        }
        return icarus;
    }

    /** How the simulator is walled off (namespaces as root, else limits only). */
    org.pettingllms.envs.sandbox.Isolation isolation() {
        return box.isolation();
    }

    /**
     * Compiles {@code files} in their map's order (pass an ordered map where the order matters: directives such as
     * {@code `timescale} carry from one file into the next) ; sources end in {@code .v} or {@code .sv}, others are data; {@code top} is the root module.
     */
    public Simulation simulate(Map<String, String> files, String top) {
        return simulate(files, List.of(top), "");
    }

    /** A name Icarus takes as a root module, and a nonce's characters: nothing the shell would read. */
    private static final java.util.regex.Pattern PLAIN = java.util.regex.Pattern.compile("[A-Za-z0-9_@]+");

    /**
     * Compiles {@code files} with the root modules {@code tops} and runs the simulation with the plus-argument {@code
     * +pettingllms_nonce=<nonce>} (when not empty): a bench reads its nonce there ({@code $value$plusargs}), so the
     * compiled simulation, which a design's file task could read, does not hold it.
     */
    public Simulation simulate(Map<String, String> files, List<String> tops, String nonce) {
        for (String name : tops) {
            if (!PLAIN.matcher(name).matches()) {
                throw new IllegalArgumentException("not a root module name: '" + name + "'");
            }
        }
        if (!nonce.isEmpty() && !PLAIN.matcher(nonce).matches()) {
            throw new IllegalArgumentException("a nonce is letters, digits and '@', got '" + nonce + "'");
        }
        List<String> sources = new ArrayList<>();
        for (String name : files.keySet()) {
            if (name.endsWith(".v") || name.endsWith(".sv")) {
                sources.add(name);
            }
        }
        // sources removed before the simulation runs: the design's file tasks cannot read the bench or a reference
        String script = "iverilog -g2012 -o sim.vvp -s " + String.join(" -s ", tops) + " \"$@\" || exit "
                + COMPILE_FAILED + "; rm -f -- \"$@\"; exec vvp -n sim.vvp"
                + (nonce.isEmpty() ? "" : " +pettingllms_nonce=" + nonce);
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", script, "icarus"));
        command.addAll(sources);
        Execution e = box.run(new LinkedHashMap<>(files), command, "", limits);
        Status status = e.ok() && e.stdout().contains("Program not runnable") ? Status.RUNTIME_ERROR : status(e);
        String log = log(e, status);
        if (status == Status.RUNTIME_ERROR && log.isBlank()) {
            log = e.stdout()
                    .lines()
                    .filter(l -> !l.isBlank())
                    .reduce((a, b) -> b)
                    .orElse("");
        }
        return new Simulation(status, e.stdout(), log, e.wallMs());
    }

    /**
     * Icarus's preprocessor on an untrusted source alone ({@code iverilog -E}, in the sandbox): macros expanded,
     * conditionals resolved, comments kept, every line end a newline. Its stdout is the expanded text; a source that
     * does not preprocess (an undefined macro, an include) is a {@link Status#COMPILE_ERROR}.
     */
    public Simulation preprocess(String source) {
        String script = "iverilog -E -o expanded.sv source.sv || exit " + COMPILE_FAILED + "; exec cat expanded.sv";
        Execution e = box.run(Map.of("source.sv", source), List.of("/bin/sh", "-c", script), "", limits);
        Status status = status(e);
        return new Simulation(status, e.stdout(), log(e, status), e.wallMs());
    }

    /** How a sandboxed compile or run ended, as a simulation's status. */
    private static Status status(Execution e) {
        return switch (e.status()) {
            case OK -> Status.OK;
            case ERROR -> e.exitCode() == COMPILE_FAILED ? Status.COMPILE_ERROR : Status.RUNTIME_ERROR;
            case KILLED -> Status.RUNTIME_ERROR;
            default -> Status.LIMIT;
        };
    }

    /** Its messages, with the limit that stopped it first when one did. */
    private static String log(Execution e, Status status) {
        return status == Status.LIMIT ? e.status().why() + "\n" + e.stderr() : e.stderr();
    }
}

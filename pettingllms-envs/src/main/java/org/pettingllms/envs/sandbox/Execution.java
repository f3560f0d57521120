package org.pettingllms.envs.sandbox;

/**
 * The outcome of one sandboxed program: a value, whatever the program did.
 *
 * @param status   why the program stopped
 * @param exitCode the process exit code (128 + signal when killed; -1 when the sandbox killed it)
 * @param stdout   captured standard output (at most the output cap)
 * @param stderr   captured standard error (at most the output cap)
 * @param wallMs   wall-clock milliseconds
 */
public record Execution(Status status, int exitCode, String stdout, String stderr, long wallMs) {
    public enum Status {
        /** exited with code 0 */
        OK("exited normally"),
        /** exited with a non-zero code (an exception, a failed assertion, a refused fork or write) */
        ERROR("exited with an error"),
        /** ran past the wall-clock limit: the whole process tree was killed */
        TIMEOUT("killed: wall-clock limit"),
        /** used up its CPU-time limit */
        CPU_LIMIT("killed: CPU-time limit"),
        /** hit the memory limit */
        MEMORY_LIMIT("stopped: memory limit"),
        /** wrote more than the output cap: the whole process tree was killed */
        OUTPUT_LIMIT("killed: output limit"),
        /** its directory grew past its cap (basic isolation; with namespaces the write itself fails) */
        DISK_LIMIT("killed: directory size limit"),
        /** killed by a signal of its own making (for example a segmentation fault) */
        KILLED("killed by a signal");

        private final String why;

        Status(String why) {
            this.why = why;
        }

        public String why() {
            return why;
        }
    }

    public boolean ok() {
        return status == Status.OK;
    }

    /** One line for transcripts and prompts: the status, and the last line of stderr when there is one. */
    public String summary() {
        String last = stderr.strip().lines().reduce((a, b) -> b).orElse("");
        return status.why() + (exitCode != 0 ? " (exit " + exitCode + ")" : "") + (last.isEmpty() ? "" : ": " + last);
    }
}

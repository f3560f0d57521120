package org.pettingllms.envs.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sandbox contract as a user without root gets it where the kernel allows user namespaces: from a root trainer
 * the programs start as an unprivileged user (without root, {@link SandboxTest} already runs this mode).
 */
class UnprivilegedSandboxTest extends SandboxContract {
    @Override
    Sandbox openIn(Path parent) {
        assumeTrue(Isolation.uid() == 0, "without root, SandboxTest runs the unprivileged mode itself");
        assumeTrue(Isolation.onPath("unshare") && Isolation.onPath("setpriv"), "needs util-linux's unshare, setpriv");
        return Sandbox.create(LIMITS, 2, Isolation.USER_NAMESPACES, NOBODY, parent);
    }

    /**
     * The kernel counts a user namespace's processes apart (its ucounts), so the limit is the run's own count: the
     * user's other processes do not loosen it (they did when the user's tasks were added to it).
     */
    @Test
    void theProcessLimitIsTheRunsOwnWhateverElseTheUserRuns() throws Exception {
        Process others = new ProcessBuilder(
                        "setpriv",
                        "--reuid=" + NOBODY,
                        "--regid=" + NOBODY,
                        "--clear-groups",
                        "--",
                        "/bin/sh",
                        "-c",
                        "for i in $(seq 150); do sleep 60 & done; wait")
                .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (BasicReaper.tasksOf(NOBODY) < 150 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(BasicReaper.tasksOf(NOBODY)).isGreaterThanOrEqualTo(150);
            assertThat(childrenForked(box))
                    .as(
                            "children started (the limit is %d processes)",
                            box.limits().processes())
                    .isBetween(box.limits().processes() - 4, box.limits().processes() - 1);
        } finally {
            others.descendants().forEach(ProcessHandle::destroyForcibly);
            others.destroyForcibly();
        }
    }
}

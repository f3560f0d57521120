package org.pettingllms.envs.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The sandbox contract on the isolation a trainer gets on this machine. */
class SandboxTest extends SandboxContract {
    @Override
    Sandbox openIn(Path parent) {
        return parent == null ? Sandbox.create(LIMITS, 2) : Sandbox.create(LIMITS, 2, Isolation.detect(), -1, parent);
    }

    /**
     * As root, every run is its own user: two sandboxes (two trainers on one machine, or a trainer beside the tests)
     * do not share a process-count budget. With a user per slot both ran as the same users, and one's sleeping
     * children left the other unable to fork.
     */
    @Tag("heavy")
    @Test
    void twoSandboxesRunningAtOnceDoNotShareAProcessBudget() throws Exception {
        assumeTrue(box.isolation() == Isolation.NAMESPACES, "namespaced runs as root");
        Sandbox other = Sandbox.create(LIMITS, 2);
        String holder = """
                import os, time
                for _ in range(%d):
                    if os.fork() == 0:
                        time.sleep(6)
                        os._exit(0)
                print(os.getuid())
                time.sleep(3)
                """.formatted(LIMITS.processes() - 4);
        String forker = """
                import os, time
                n = 0
                for _ in range(20):
                    try:
                        pid = os.fork()
                    except OSError:
                        break
                    if pid == 0:
                        time.sleep(1)
                        os._exit(0)
                    n += 1
                print(os.getuid(), n)
                """;
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<Execution> held = threads.submit(() -> box.run(holder, ""));
            Thread.sleep(1500); // its children are running
            Execution e = other.run(forker, "");
            Execution h = held.get();
            assertThat(e.ok()).as(e.summary()).isTrue();
            String[] out = e.stdout().strip().split(" ");
            assertThat(out[1]).as("children started beside the other run's").isEqualTo("20");
            assertThat(out[0]).isNotEqualTo(h.stdout().strip());
        }
    }
}

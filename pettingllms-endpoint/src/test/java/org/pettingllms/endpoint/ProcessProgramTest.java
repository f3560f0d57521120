package org.pettingllms.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Problem;

/**
 * A program that exits but leaves children running (one in a subshell, one a shell of its own) ends the episode within its timeout, with its
 * printed reward, and leaves no process behind (its process group is killed), daemonised grandchildren included.
 */
class ProcessProgramTest {
    static long running(String marker) {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(marker))
                .count();
    }

    @Test
    void childrenLeftRunningDoNotOutliveTheEpisode() throws Exception {
        String marker = "313.25";
        ProcessProgram p = new ProcessProgram(
                "echo 0.5; (sleep " + marker + " &); (sh -c 'sleep " + marker + "' &) ; exit 0", Duration.ofSeconds(3));
        long start = System.nanoTime();
        double reward = p.run(new Problem("p0", 0, Map.of()), URI.create("http://127.0.0.1:9/"));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(reward).isEqualTo(0.5);
        assertThat(seconds).as("the episode ended by its timeout").isLessThan(10);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (running(marker) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(running(marker)).as("processes left behind").isZero();
    }
}

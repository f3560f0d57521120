package org.pettingllms.envs.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What basic isolation has instead of namespaces, read from and done through /proc: the processes a run left behind
 * found and killed, the tasks a user runs counted (for the process-count limit, which the kernel counts per user),
 * and the run's directory measured. A run's processes are its session's process group and every process whose
 * environment names the run's directory ({@code TMPDIR}, set for every sandboxed program): a daemon that left the
 * group (fork, setsid, fork, chdir, closed descriptors) still has it. Only a program that starts a new program with
 * an environment of its own and leaves the group escapes; that is why basic isolation warns.
 */
final class BasicReaper {
    /** Entries of a run's directory measured at most; more count as over any cap (the namespaced tmpfs allows 4096). */
    static final int MAX_ENTRIES = 4096;

    private BasicReaper() {}

    /** Waited at most for killed processes to be gone (reaped), so that they no longer count against the user. */
    private static final Duration GONE = Duration.ofSeconds(2);

    /**
     * Kills the process group {@code pgid} and every process of this run ({@code TMPDIR=dir}), until none is left,
     * then waits (at most {@link #GONE}) until the killed are reaped: a killed process counts against its user's
     * process limit until then, and the next run's limit is set from that count.
     */
    static void killRun(long pgid, Path dir) {
        byte[] marker = ("TMPDIR=" + dir + "\0").getBytes(StandardCharsets.UTF_8);
        long self = ProcessHandle.current().pid();
        // the run's processes before the group is killed: a killed process's environment is gone at once, so the scan
        // after the kill no longer finds the group's dying members, and they must be waited for too (under load, the
        // next run started while they still counted, and its first fork failed)
        List<ProcessHandle> killed = new ArrayList<>(marked(marker, self));
        killGroup(pgid);
        for (int round = 0; round < 8; round++) { // a process that forks while we kill is found in the next round
            List<ProcessHandle> found = marked(marker, self);
            if (found.isEmpty()) {
                break;
            }
            found.forEach(ProcessHandle::destroyForcibly);
            killed.addAll(found);
        }
        long deadline = System.nanoTime() + GONE.toNanos();
        for (ProcessHandle h : killed) {
            while (h.isAlive() && System.nanoTime() < deadline) { // alive until reaped, zombies included
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static List<ProcessHandle> marked(byte[] marker, long self) {
        List<ProcessHandle> found = new ArrayList<>();
        for (long pid : pids()) {
            if (pid != self && hasMarker(pid, marker)) {
                ProcessHandle.of(pid).ifPresent(found::add);
            }
        }
        return found;
    }

    /**
     * {@code kill -KILL -pgid}: the JDK signals single processes only. The group's leader has exited and been reaped
     * by then, but its number stays the group's: Linux does not reuse a pid while a process group of that number has
     * a member, and a group without members has nothing to kill (a new process given the number would have to make
     * a group of its own, within the moment between the reaping and this call, after pid numbers wrapped round).
     */
    private static void killGroup(long pgid) {
        try {
            Process k = new ProcessBuilder("kill", "-KILL", "--", "-" + pgid)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            k.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // no kill(1): the marker scan below still finds the run's processes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean hasMarker(long pid, byte[] marker) {
        try {
            byte[] env = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            return indexOf(env, marker) >= 0;
        } catch (IOException | RuntimeException e) {
            return false; // gone, or another user's
        }
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (i > 0 && hay[i - 1] != 0) {
                continue; // a variable starts after a NUL
            }
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Tasks (processes and threads) that user {@code uid} runs now, as the kernel's process-count limit counts. */
    static int tasksOf(int uid) {
        return tasksOf(uid, null);
    }

    /**
     * The tasks of {@code uid} outside the runs of the sandbox whose directory is {@code base}: those whose
     * environment names no run directory under it ({@code TMPDIR=base/...}), so that one run's share is not counted
     * into the next one's limit. Another sandbox's runs (another trainer under the same user) are outside: the
     * kernel counts them into every limit of the user, so leaving them out would starve this sandbox's runs.
     */
    static int tasksOutsideRuns(int uid, Path base) {
        return tasksOf(uid, ("TMPDIR=" + base + "/").getBytes(StandardCharsets.UTF_8));
    }

    private static final byte[] RUN_MARKER = "TMPDIR=".getBytes(StandardCharsets.UTF_8);

    private static boolean inARun(long pid, byte[] runFolder) {
        try {
            byte[] env = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            if (env.length == 0) {
                // exiting: a killed process's environment is gone before it is reaped, and until then it counts.
                // mostly a finished run's (another slot's run may be starting now): left out as a run's are (leaving
                // out
                // one of the trainer's own only lowers the next limit for a moment)
                return true;
            }
            int at = indexOf(env, RUN_MARKER);
            if (at < 0) {
                return false;
            }
            int end = at;
            while (end < env.length && env[end] != 0) {
                end++;
            }
            byte[] value = java.util.Arrays.copyOfRange(env, at, end);
            return startsWith(value, runFolder);
        } catch (IOException | RuntimeException e) {
            return true; // gone while we looked
        }
    }

    private static boolean startsWith(byte[] hay, byte[] prefix) {
        return hay.length >= prefix.length && java.util.Arrays.equals(hay, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** The tasks of {@code uid}; with {@code runFolder}, only those whose {@code TMPDIR} does not start with it. */
    private static int tasksOf(int uid, byte[] runFolder) {
        int tasks = 0;
        for (long pid : pids()) {
            Path proc = Path.of("/proc", Long.toString(pid));
            try {
                if ((Integer) Files.getAttribute(proc, "unix:uid") != uid) {
                    continue;
                }
                if (runFolder != null && inARun(pid, runFolder)) {
                    continue;
                }
                Optional<String> threads = Files.readAllLines(proc.resolve("status")).stream()
                        .filter(l -> l.startsWith("Threads:"))
                        .findFirst();
                tasks += threads.map(l -> Integer.parseInt(l.substring(8).strip()))
                        .orElse(1);
            } catch (IOException | RuntimeException e) {
                // gone while we looked
            }
        }
        return tasks;
    }

    /** Bytes of the files under {@code dir}; {@link Long#MAX_VALUE} past {@link #MAX_ENTRIES} entries. */
    static long sizeOf(Path dir) {
        long[] sum = {0};
        int[] entries = {0};
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.takeWhile(f -> ++entries[0] <= MAX_ENTRIES).forEach(f -> {
                try {
                    sum[0] += Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? Files.size(f) : 0;
                } catch (IOException gone) {
                    // removed while we looked
                }
            });
        } catch (IOException | RuntimeException e) {
            return sum[0];
        }
        return entries[0] > MAX_ENTRIES ? Long.MAX_VALUE : sum[0];
    }

    private static List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.forEach(p -> {
                String name = p.getFileName().toString();
                if (!name.isEmpty() && name.chars().allMatch(Character::isDigit)) {
                    pids.add(Long.parseLong(name));
                }
            });
        } catch (IOException e) {
            // no /proc: nothing to find
        }
        return pids;
    }
}

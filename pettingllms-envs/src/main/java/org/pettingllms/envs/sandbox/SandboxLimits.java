package org.pettingllms.envs.sandbox;

import java.time.Duration;

/**
 * Resource limits of one sandboxed execution.
 *
 * @param wallTime     wall-clock limit; the whole process tree is killed when it passes
 * @param cpuSeconds   CPU-time limit (RLIMIT_CPU)
 * @param memoryBytes  address-space limit (RLIMIT_AS)
 * @param fileBytes    largest file the program may write (RLIMIT_FSIZE)
 * @param processes    processes and threads the program's user may run (RLIMIT_NPROC)
 * @param outputBytes  cap on captured stdout and on stderr; the program is stopped when it writes more
 * @param dirBytes     all files of the run's directory together (with namespaces a tmpfs of that size, so a write
 *                     past it fails with "No space left on device"; in basic isolation the directory is measured
 *                     while the program runs and the program killed past it)
 */
public record SandboxLimits(
        Duration wallTime,
        int cpuSeconds,
        long memoryBytes,
        long fileBytes,
        int processes,
        int outputBytes,
        long dirBytes) {
    /** The directory cap when none is given: room for a few files at the per-file cap. */
    public static final long DEFAULT_DIR_BYTES = 64L << 20;

    /** Generous enough for contest programs, small enough that a hostile one cannot hurt the trainer. */
    public static final SandboxLimits DEFAULT =
            new SandboxLimits(Duration.ofSeconds(10), 10, 1L << 30, 16L << 20, 32, 1 << 20);

    /** Limits with the directory cap {@link #DEFAULT_DIR_BYTES}, or the per-file cap when that is larger. */
    public SandboxLimits(
            Duration wallTime, int cpuSeconds, long memoryBytes, long fileBytes, int processes, int outputBytes) {
        this(
                wallTime,
                cpuSeconds,
                memoryBytes,
                fileBytes,
                processes,
                outputBytes,
                Math.max(DEFAULT_DIR_BYTES, fileBytes));
    }

    public SandboxLimits {
        if (wallTime.isNegative() || wallTime.isZero()) {
            throw new IllegalArgumentException("wallTime must be > 0, got " + wallTime);
        }
        if (cpuSeconds < 1 || memoryBytes < (32L << 20) || fileBytes < 0 || processes < 1 || outputBytes < 1) {
            throw new IllegalArgumentException("sandbox limits out of range: cpuSeconds >= 1, memoryBytes >= 32 MiB,"
                    + " fileBytes >= 0, processes >= 1, outputBytes >= 1; got " + this);
        }
        if (dirBytes < (1L << 20) || dirBytes < fileBytes) {
            throw new IllegalArgumentException(
                    "sandbox dirBytes must be >= 1 MiB and >= fileBytes (" + fileBytes + "), got " + dirBytes);
        }
    }

    public SandboxLimits withWallTime(Duration d) {
        return new SandboxLimits(
                d,
                Math.max(1, (int) Math.ceil(d.toMillis() / 1000.0)),
                memoryBytes,
                fileBytes,
                processes,
                outputBytes,
                dirBytes);
    }

    /**
     * How much longer than a program's work limit its wall clock may run in {@link #forWork}: a machine whose cores
     * other jobs share stretches a program's wall time, not its CPU time.
     */
    public static final int WALL_SLACK = 4;

    /**
     * Limits for a program whose limit is about work: {@code work} of CPU time (whole seconds, rounded up), and a wall
     * clock of {@link #WALL_SLACK} times that plus a second, which only a program that waits (sleeps, blocks) reaches,
     * or one that spreads its work over several processes (RLIMIT_CPU counts each process alone).
     * So a computing program's verdict is its CPU time's, which load does not move: two runs of one seed on a busy
     * and an idle machine judge it alike.
     */
    public SandboxLimits forWork(Duration work) {
        int cpu = Math.max(1, (int) Math.ceil(work.toMillis() / 1000.0));
        return new SandboxLimits(
                work.multipliedBy(WALL_SLACK).plusSeconds(1),
                cpu,
                memoryBytes,
                fileBytes,
                processes,
                outputBytes,
                dirBytes);
    }

    public SandboxLimits withMemoryBytes(long bytes) {
        return new SandboxLimits(wallTime, cpuSeconds, bytes, fileBytes, processes, outputBytes, dirBytes);
    }

    public SandboxLimits withOutputBytes(int bytes) {
        return new SandboxLimits(wallTime, cpuSeconds, memoryBytes, fileBytes, processes, bytes, dirBytes);
    }

    public SandboxLimits withDirBytes(long bytes) {
        return new SandboxLimits(wallTime, cpuSeconds, memoryBytes, fileBytes, processes, outputBytes, bytes);
    }
}

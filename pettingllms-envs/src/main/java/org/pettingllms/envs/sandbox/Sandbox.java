package org.pettingllms.envs.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs untrusted programs in a separate, limited process (ENVIRONMENTS.md, "The sandbox"): Python source
 * ({@link #create}, {@link #run(String, String)}) or a tool's command on files the caller writes ({@link #forTools},
 * {@link #run(Map, List, String, SandboxLimits)}: a simulator on a model-written design). Each run gets its own temporary
 * directory (removed afterwards), stdin from the caller, stdout/stderr captured up to a cap ({@link RunPipes}),
 * wall-clock, CPU, memory, file-size and process-count limits, an empty environment, no network
 * ({@link Isolation#NAMESPACES}), and the whole process tree killed when a limit is hit. At most {@code concurrency} programs run at once;
 * callers beyond that wait. Whatever the program does, {@link #run} returns an {@link Execution}.
 */
public final class Sandbox {
    private static final Logger LOG = LoggerFactory.getLogger(Sandbox.class);
    private static final int SETUP_FAILED = 120;
    /** The PATH a sandboxed program runs with: the tools it may start are found there. */
    public static final String PROGRAM_PATH = "/usr/local/bin:/usr/bin:/bin";

    private static final int SIGXCPU = 24;
    /** How long a run's output may stay open after its program exited (a child holding it) before it is killed. */
    private static final Duration DRAIN = Duration.ofSeconds(1);
    /** How often basic isolation measures a running program's directory. */
    private static final Duration POLL = Duration.ofMillis(50);

    private final SandboxLimits limits;
    private static final AtomicBoolean BASIC_WARNED = new AtomicBoolean();
    private final Isolation isolation;
    /** The Python interpreter, or null for a sandbox that runs tools only. */
    private final String python;
    /** The interpreter's installation outside the system directories (bound into the view), or null. */
    private final Path pythonPrefix;

    private final Path base;
    private final BlockingQueue<Integer> slots;
    private final int concurrency;
    /** The user id programs are started as (tests: an unprivileged user from a root trainer), or -1: ours. */
    private final int runAs;

    private Sandbox(SandboxLimits limits, int concurrency, Isolation isolation, String python, Path base, int runAs) {
        this.limits = limits;
        this.runAs = runAs;
        this.isolation = isolation;
        this.python = python;
        this.pythonPrefix = python == null ? null : prefix(python);
        this.base = base;
        this.slots = new ArrayBlockingQueue<>(concurrency);
        this.concurrency = concurrency;
        for (int i = 0; i < concurrency; i++) {
            slots.add(i);
        }
    }

    /** Programs run at once for a configured count: that count, or one per CPU when it is 0. */
    public static int slots(int configured) {
        if (configured < 0) {
            throw new IllegalArgumentException("sandbox slots must be >= 0 (0: one per CPU), got " + configured);
        }
        return configured > 0 ? configured : Runtime.getRuntime().availableProcessors();
    }

    /**
     * A sandbox with the best isolation this machine allows; checks that Python runs in it.
     *
     * @throws SandboxException when no python3 is found or a trivial program fails in the sandbox
     */
    public static Sandbox create(SandboxLimits limits, int concurrency) {
        return probed(open(limits, concurrency, findPython(), Isolation.detect(), -1, null));
    }

    /**
     * A Python sandbox with {@code isolation} whose programs start as user {@code uid} (from a root trainer), so that
     * a root machine tests what a user without root gets; {@code uid} -1 starts them as this process's user.
     */
    static Sandbox create(SandboxLimits limits, int concurrency, Isolation isolation, int uid) {
        return create(limits, concurrency, isolation, uid, null);
    }

    /** As above, its run directories under {@code parent} (null: the system's temporary directory). */
    static Sandbox create(SandboxLimits limits, int concurrency, Isolation isolation, int uid, Path parent) {
        return probed(open(limits, concurrency, findPython(), isolation, uid, parent));
    }

    private static Sandbox probed(Sandbox box) {
        Execution probe = box.run("print(6 * 7)", "");
        if (!probe.ok() || !probe.stdout().strip().equals("42")) {
            throw new SandboxException("python3 (" + box.python + ") does not run in the sandbox (" + box.isolation
                    + "): " + probe.summary() + "; install Python 3 for all users (for example: apt-get install"
                    + " python3)");
        }
        return box;
    }

    /**
     * A sandbox for tools installed on this machine ({@link #run(Map, List, String, SandboxLimits)}), without Python;
     * the caller checks that its tool runs in it.
     */
    public static Sandbox forTools(SandboxLimits limits, int concurrency) {
        return open(limits, concurrency, null, Isolation.detect(), -1, null);
    }

    private static Sandbox open(
            SandboxLimits limits, int concurrency, String python, Isolation isolation, int runAs, Path parent) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("sandbox concurrency must be >= 1, got " + concurrency);
        }
        Path base;
        try {
            var mode = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x"));
            base = parent == null
                    ? Files.createTempDirectory("pettingllms-sandbox-", mode)
                    : Files.createTempDirectory(parent, "pettingllms-sandbox-", mode);
        } catch (IOException e) {
            throw new SandboxException(
                    "cannot create the sandbox directory in " + System.getProperty("java.io.tmpdir"), e);
        }
        if (runAs >= 0) {
            try {
                Files.setAttribute(base, "unix:uid", runAs); // where the namespaced setup leaves its failure marker
            } catch (IOException e) {
                throw new SandboxException("cannot hand the sandbox directory to user " + runAs, e);
            }
        }
        Sandbox box = new Sandbox(limits, concurrency, isolation, python, base, runAs);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(base)));
        LOG.debug("sandbox ready: {} isolation, python {}, {} slots", isolation, python, concurrency);
        if (isolation == Isolation.BASIC && BASIC_WARNED.compareAndSet(false, true)) {
            LOG.warn("sandbox: basic isolation only (util-linux's unshare, setpriv and prlimit give more, as root or"
                    + " where the kernel lets users create user namespaces): programs run with resource limits and"
                    + " are killed with their session at the end of each run, but can read and write every file this"
                    + " user can (the datasets' answers included) and reach the network");
        }
        return box;
    }

    public Isolation isolation() {
        return isolation;
    }

    public SandboxLimits limits() {
        return limits;
    }

    /** The directory that holds this sandbox's run directories. */
    Path base() {
        return base;
    }

    /** Runs {@code source} with {@code stdin} under this sandbox's limits. */
    public Execution run(String source, String stdin) {
        return run(source, stdin, limits);
    }

    /** Runs {@code source} with {@code stdin} under {@code limits}; blocks while all slots are busy. */
    public Execution run(String source, String stdin, SandboxLimits limits) {
        if (python == null) {
            throw new IllegalStateException("this sandbox runs tools only (made by forTools), not Python");
        }
        return run(Map.of("main.py", source), List.of(python, "-I", "-B", "main.py"), stdin, limits);
    }

    /**
     * Runs {@code command} (its first word an absolute path or a tool on the system PATH) in a fresh directory that
     * holds {@code files} (names without folders), with {@code stdin}, under {@code limits}; blocks while all slots
     * are busy. {@code TMPDIR} and {@code HOME} are that directory, the only place the command may write.
     */
    public Execution run(Map<String, String> files, List<String> command, String stdin, SandboxLimits limits) {
        for (String name : files.keySet()) {
            if (name.isEmpty() || name.contains("/") || name.startsWith(".")) {
                throw new IllegalArgumentException("sandbox file names are plain names, got '" + name + "'");
            }
        }
        int slot;
        try {
            slot = slots.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted while waiting for a sandbox slot", e);
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory(base, "run-");
            for (Map.Entry<String, String> f : files.entrySet()) {
                Files.writeString(dir.resolve(f.getKey()), f.getValue(), StandardCharsets.UTF_8);
            }
            if (isolation != Isolation.NAMESPACES) {
                return execute(dir, -1, command, stdin, limits);
            }
            try (RunUsers.Claim user = RunUsers.claim()) {
                return execute(dir, user.uid(), command, stdin, limits);
            }
        } catch (IOException e) {
            throw new SandboxException("sandbox I/O failed in " + dir, e);
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
            slots.add(slot);
        }
    }

    /** @param uid the user the program runs as (NAMESPACES), else -1 */
    private Execution execute(Path dir, int uid, List<String> command, String stdin, SandboxLimits limits)
            throws IOException {
        List<String> program = new ArrayList<>(List.of(
                "prlimit",
                "--cpu=" + limits.cpuSeconds() + ":" + (limits.cpuSeconds() + 1),
                "--as=" + limits.memoryBytes(),
                "--fsize=" + limits.fileBytes(),
                "--core=0",
                "--nofile=64"));
        int nproc = processLimit(limits);
        if (nproc > 0) {
            program.add("--nproc=" + nproc);
        }
        program.addAll(
                List.of("--", "env", "-i", "PATH=" + PROGRAM_PATH, "HOME=" + dir, "TMPDIR=" + dir, "LANG=C.UTF-8"));
        program.addAll(command);
        List<String> line = new ArrayList<>();
        if (runAs >= 0) {
            Files.setAttribute(dir, "unix:uid", runAs);
            line.addAll(List.of("setpriv", "--reuid=" + runAs, "--regid=" + runAs, "--clear-groups", "--"));
        }
        line.addAll(isolation.wrap(program, dir, uid, pythonPrefix, limits.dirBytes()));
        ProcessBuilder pb = new ProcessBuilder(line).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        long start = System.nanoTime();
        long deadline = start + limits.wallTime().toNanos();
        Process p = pb.start();
        AtomicReference<Execution.Status> killedFor = new AtomicReference<>();
        Runnable overflow = () -> kill(p, dir, killedFor, Execution.Status.OUTPUT_LIMIT);
        Thread in = Thread.ofVirtual().start(() -> RunPipes.feed(p.getOutputStream(), stdin));
        RunPipes.Capture out = new RunPipes.Capture(p.getInputStream(), limits.outputBytes(), overflow);
        RunPipes.Capture err = new RunPipes.Capture(p.getErrorStream(), limits.outputBytes(), overflow);
        try {
            awaitExit(p, dir, deadline, limits, killedFor);
            if (!isolation.namespaced()) {
                BasicReaper.killRun(p.pid(), dir); // what it started, left in its group or not
            }
            // its output ends when the last holder of the pipes exits: bounded, whatever that holder does
            long drain = System.nanoTime() + DRAIN.toNanos();
            boolean drained = out.join(drain) & err.join(drain) & RunPipes.join(in, drain);
            if (!drained) {
                kill(p, dir, killedFor, Execution.Status.TIMEOUT);
                long last = System.nanoTime() + DRAIN.toNanos();
                if (!(out.join(last) & err.join(last) & RunPipes.join(in, last))) {
                    LOG.warn("sandbox: a process outside the run's reach holds its output open; returning what it"
                            + " printed so far");
                }
            }
        } catch (InterruptedException e) {
            kill(p, dir, killedFor, Execution.Status.TIMEOUT);
            Thread.currentThread().interrupt();
            throw new SandboxException("interrupted while a sandboxed program ran", e);
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        int code = p.exitValue();
        String stderr = err.text();
        // only the namespaced setup writes the marker, outside the program's view: a program cannot forge it there
        Path setupFailed = dir.resolveSibling(dir.getFileName() + ".setup-failed");
        if (isolation.namespaced()
                && code == SETUP_FAILED
                && killedFor.get() == null
                && Files.deleteIfExists(setupFailed)) {
            throw new SandboxException("sandbox setup failed (" + isolation + "): " + stderr.strip());
        }
        return new Execution(
                classify(code, stderr, killedFor.get()), killedFor.get() != null ? -1 : code, out.text(), stderr, ms);
    }

    /**
     * Waits for the launcher to exit or the wall-clock deadline; in basic isolation it also measures the run's
     * directory every {@link #POLL} (with namespaces the directory is a tmpfs of that size).
     */
    private void awaitExit(
            Process p, Path dir, long deadline, SandboxLimits limits, AtomicReference<Execution.Status> killedFor)
            throws InterruptedException {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                kill(p, dir, killedFor, Execution.Status.TIMEOUT);
                p.waitFor();
                return;
            }
            long wait = isolation.namespaced() ? left : Math.min(left, POLL.toNanos());
            if (p.waitFor(wait, TimeUnit.NANOSECONDS)) {
                return;
            }
            if (!isolation.namespaced() && BasicReaper.sizeOf(dir) > limits.dirBytes()) {
                kill(p, dir, killedFor, Execution.Status.DISK_LIMIT);
                p.waitFor();
                return;
            }
        }
    }

    /** Whether the kernel counts a user namespace's processes apart (ucounts, Linux 5.14). */
    private static final boolean COUNTS_PER_NAMESPACE = kernelAtLeast(5, 14);

    /**
     * RLIMIT_NPROC for a run, or 0 for none (root ignores it). The kernel counts it per user, and since Linux 5.14 per user namespace (ucounts): a
     * run's user (NAMESPACES, RunUsers) and a fresh user namespace's root (USER_NAMESPACES) run only this run's tasks, so the
     * limit is the run's own count, plus, in a user namespace, the two that live there before the program (unshare
     * and the setup shell). Before 5.14, and in BASIC, the program shares its user's count with whatever else that
     * user runs: the limit is what that user runs outside sandbox runs, plus this sandbox's share for all its slots
     * ({@code processes} x slots), the same for every run. Counting other runs' processes into a run's limit (as
     * this once did) let a run inherit their share when they ended: each run's limit grew by the last one's.
     */
    private int processLimit(SandboxLimits limits) {
        if (countedApart()) {
            return limits.processes() + (isolation == Isolation.USER_NAMESPACES ? 2 : 0);
        }
        int uid = runAs >= 0 ? runAs : Isolation.uid();
        return uid > 0 ? BasicReaper.tasksOutsideRuns(uid, base) + limits.processes() * concurrency : 0;
    }

    /**
     * The processes one run may reach: its own {@code processes} where the kernel counts the run apart (namespaces),
     * else the share of all this sandbox's slots, which its runs hold together (see {@link #processLimit}).
     */
    int processBound() {
        return countedApart() ? limits.processes() : limits.processes() * concurrency;
    }

    /** Whether the kernel counts a run's processes apart from the user's others: its own user, or its namespace. */
    private boolean countedApart() {
        return isolation == Isolation.NAMESPACES || (isolation == Isolation.USER_NAMESPACES && COUNTS_PER_NAMESPACE);
    }

    /** Whether the running Linux kernel is at least {@code major.minor} (false when it cannot be read). */
    static boolean kernelAtLeast(int major, int minor) {
        try {
            String[] v = Files.readString(Path.of("/proc/sys/kernel/osrelease"))
                    .strip()
                    .split("[.-]");
            int a = Integer.parseInt(v[0]);
            int b = Integer.parseInt(v[1]);
            return a > major || a == major && b >= minor;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static Execution.Status classify(int code, String stderr, Execution.Status killedFor) {
        if (killedFor != null) {
            return killedFor;
        }
        if (code == 0) {
            return Execution.Status.OK;
        }
        if (stderr.contains("MemoryError") || stderr.contains("Cannot allocate memory")) {
            return Execution.Status.MEMORY_LIMIT;
        }
        if (code == 128 + SIGXCPU || code == 128 + 9) {
            return Execution.Status.CPU_LIMIT; // SIGXCPU at the soft limit, SIGKILL at the hard one
        }
        return code > 128 ? Execution.Status.KILLED : Execution.Status.ERROR;
    }

    /**
     * Kills the launcher and every descendant; with namespaces the kernel then ends the whole PID namespace, in basic
     * isolation the run's process group and every process of the run are killed too.
     */
    private void kill(Process p, Path dir, AtomicReference<Execution.Status> killedFor, Execution.Status why) {
        killedFor.compareAndSet(null, why);
        try (Stream<ProcessHandle> kids = p.descendants()) {
            kids.forEach(ProcessHandle::destroyForcibly);
        }
        p.destroyForcibly();
        if (!isolation.namespaced()) {
            BasicReaper.killRun(p.pid(), dir);
        }
    }

    /** Where an interpreter outside /usr, /bin and /lib is installed ({@code <prefix>/bin/python3}), or null. */
    static Path prefix(String python) {
        try {
            Path real = Path.of(python).toRealPath();
            for (String system : List.of("/usr/", "/bin/", "/lib")) {
                if (real.toString().startsWith(system)) {
                    return null;
                }
            }
            Path bin = real.getParent();
            return bin != null && bin.getParent() != null ? bin.getParent() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String findPython() {
        String configured = System.getenv("PETTINGLLMS_PYTHON");
        List<String> candidates =
                configured != null ? List.of(configured) : List.of("/usr/bin/python3", "/usr/local/bin/python3");
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        throw new SandboxException("no Python 3 interpreter found (looked at " + candidates + "); install python3"
                + " (for example: apt-get install python3) or set PETTINGLLMS_PYTHON to its path");
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not remove sandbox directory {}: {}", root, e.toString());
        }
    }
}

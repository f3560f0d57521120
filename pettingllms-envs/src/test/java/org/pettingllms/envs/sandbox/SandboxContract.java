package org.pettingllms.envs.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.testkit.SharedFiles;

/**
 * Hostile programs: each limit holds, the result says why, and the machine is unharmed. The same contract runs on
 * every isolation this machine offers: {@link SandboxTest} the one a trainer gets here, {@link UnprivilegedSandboxTest}
 * and {@link BasicSandboxTest} what a user without root gets (from a root trainer, the programs start as an
 * unprivileged user, so CI running as root tests them too).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SandboxContract {
    static final SandboxLimits LIMITS = SandboxLimits.DEFAULT.withWallTime(Duration.ofSeconds(4));
    /** The unprivileged user the non-root modes start programs as when the tests run as root. */
    static final int NOBODY = 65534;

    Sandbox box;

    /** The sandbox under test. */
    final Sandbox open() {
        return openIn(null);
    }

    /** The sandbox under test, its run directories under {@code parent} (null: the system's temporary directory). */
    abstract Sandbox openIn(Path parent);

    @Test
    void aRunDirectoryWhosePathHoldsSpacesWorks(@TempDir Path tmp) throws Exception {
        Path parent = Files.createDirectories(tmp.resolve("with space").resolve("and  two"));
        for (Path p = parent; !p.equals(tmp.getParent()); p = p.getParent()) { // a user without root walks it
            Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rwx--x--x"));
        }
        Sandbox spaced = openIn(parent);
        Execution e = spaced.run("import os\nprint(os.getcwd().count(' '))\nopen('f.txt', 'w').write('x')", "");
        assertThat(e.status()).as(e.summary()).isEqualTo(Execution.Status.OK);
        assertThat(e.stdout().strip()).isEqualTo("3");
    }

    @BeforeAll
    void create() {
        box = open();
    }

    @Test
    void runsAProgramWithStdinAndCapturesBothStreams() {
        Execution e = box.run("import sys\nn = int(input())\nprint(n * 2)\nprint('warn', file=sys.stderr)", "21\n");
        assertThat(e.status()).isEqualTo(Execution.Status.OK);
        assertThat(e.stdout()).isEqualTo("42\n");
        assertThat(e.stderr()).isEqualTo("warn\n");
    }

    @Test
    void anExceptionIsAnErrorWithItsMessage() {
        Execution e = box.run("raise ValueError('bad input')", "");
        assertThat(e.status()).isEqualTo(Execution.Status.ERROR);
        assertThat(e.exitCode()).isEqualTo(1);
        assertThat(e.summary()).contains("ValueError: bad input");
    }

    @Test
    void aProgramThatExitsWithTheSetupFailureCodeIsJustAnError() {
        // 120 is what a failed sandbox setup exits with; the program's own 120 must not pass for one
        Execution e = box.run("import sys\nsys.exit(120)", "");
        assertThat(e.status()).isEqualTo(Execution.Status.ERROR);
        assertThat(e.exitCode()).isEqualTo(120);
    }

    @Tag("heavy")
    @Test
    void anInfiniteLoopIsKilledAtTheWallClockLimit() {
        Execution e = box.run("while True:\n    pass", "", box.limits().withWallTime(Duration.ofMillis(1500)));
        assertThat(e.status()).isEqualTo(Execution.Status.TIMEOUT);
        assertThat(e.wallMs()).isBetween(1400L, 4000L);
    }

    @Test
    void aSleeperIsKilledAtTheWallClockLimitThoughItUsesNoCpu() {
        Execution e = box.run("import time\ntime.sleep(60)", "", box.limits().withWallTime(Duration.ofMillis(800)));
        assertThat(e.status()).isEqualTo(Execution.Status.TIMEOUT);
    }

    @Test
    void cpuTimeIsLimited() {
        SandboxLimits cpu1 = new SandboxLimits(Duration.ofSeconds(8), 1, 1L << 30, 1 << 20, 32, 1 << 20);
        Execution e = box.run("while True:\n    pass", "", cpu1);
        assertThat(e.status()).isEqualTo(Execution.Status.CPU_LIMIT);
        assertThat(e.wallMs()).isLessThan(6000);
    }

    @Test
    void aMemoryHogStopsAtTheMemoryLimit() {
        Execution e = box.run(
                "x = bytearray(2 * 1024 ** 3)\nprint('allocated')",
                "",
                box.limits().withMemoryBytes(256L << 20));
        assertThat(e.status()).isEqualTo(Execution.Status.MEMORY_LIMIT);
        assertThat(e.stdout()).doesNotContain("allocated");
    }

    @Test
    void hundredMegabytesOfOutputAreCutAtTheCapAndTheProgramKilled() {
        Execution e = box.run(
                "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1 << 20))\n"
                        + "print('finished', file=sys.stderr)",
                "",
                box.limits().withOutputBytes(64 * 1024));
        assertThat(e.status()).isEqualTo(Execution.Status.OUTPUT_LIMIT);
        assertThat(e.stdout()).hasSize(64 * 1024);
        assertThat(e.stderr()).doesNotContain("finished");
    }

    @Test
    void filesAreLimitedInSizeAndTheDirectoryIsRemoved() {
        SandboxLimits small = new SandboxLimits(Duration.ofSeconds(4), 4, 1L << 30, 1 << 20, 32, 1 << 20);
        Execution e = box.run(
                "import os\nprint(os.getcwd(), flush=True)\nopen('big', 'wb').write(b'0' * (8 << 20))", "", small);
        assertThat(e.status()).isEqualTo(Execution.Status.ERROR);
        assertThat(e.stderr()).contains("File too large");
        assertThat(Path.of(e.stdout().strip())).doesNotExist();
    }

    @Test
    void writingOutsideItsDirectoryFails(@TempDir Path outside) throws Exception {
        assumeTrue(box.isolation().namespaced(), "needs namespace isolation");
        String tmpName = "/tmp/pettingllms-escape-" + UUID.randomUUID();
        Path target = outside.resolve("escaped.txt");
        Execution e = box.run("""
                import os
                hits = []
                for p in [%s, %s, '../escaped.txt', '/escaped.txt', '/dev/shm/escaped']:
                    try:
                        with open(p, 'w') as f:
                            f.write('pwned')
                        hits.append(p)
                    except OSError as err:
                        pass
                print('written:', hits)
                """.formatted(pyStr(target.toString()), pyStr(tmpName)), "");
        assertThat(e.stdout()).contains("written: []");
        assertThat(target).doesNotExist();
        assertThat(Path.of(tmpName)).doesNotExist();
        assertThat(Path.of("/escaped.txt")).doesNotExist();
    }

    @Test
    void theSystemDirectoriesAreMountedReadOnly() {
        assumeTrue(box.isolation().namespaced(), "needs namespace isolation");
        Execution e = box.run("""
                for line in open('/proc/self/mounts'):
                    fields = line.split()
                    if fields[1] in ('/usr', '/etc'):
                        print(fields[1], fields[3].split(',')[0])
                """, "");
        assertThat(e.ok()).as(e.summary()).isTrue();
        assertThat(e.stdout().lines()).contains("/usr ro", "/etc ro").doesNotContain("/usr rw", "/etc rw");
    }

    @Test
    void theNetworkIsUnreachable() throws Exception {
        assumeTrue(box.isolation().namespaced(), "needs namespace isolation");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(100);
            Execution e = box.run("""
                    import socket
                    for host, port in [('127.0.0.1', %d), ('1.1.1.1', 53)]:
                        try:
                            socket.create_connection((host, port), timeout=2).close()
                            print('connected', host)
                        except OSError as err:
                            print('refused', host)
                    """.formatted(server.getLocalPort()), "");
            assertThat(e.stdout()).doesNotContain("connected").contains("refused 127.0.0.1", "refused 1.1.1.1");
            try {
                server.accept().close();
                throw new AssertionError("the sandboxed program reached a server of the host");
            } catch (SocketTimeoutException expected) {
                // nobody connected
            }
        }
    }

    @Test
    void theParentsEnvironmentIsNotVisible() {
        assumeTrue(
                box.isolation().namespaced() || Isolation.uid() == 0,
                "basic isolation as the trainer's own user can read the trainer's environment");
        long parent = ProcessHandle.current().pid();
        Execution e = box.run("""
                import os
                print(sorted(os.environ))
                try:
                    print(open('/proc/%d/environ').read())
                except OSError:
                    print('no parent environ')
                """.formatted(parent), "");
        assertThat(e.stdout()).startsWith("['HOME', 'LANG', 'PATH', 'TMPDIR']").contains("no parent environ");
        for (String secretish : List.of("JAVA_HOME", "MAVEN", "USER=")) {
            assertThat(e.stdout()).doesNotContain(secretish);
        }
    }

    @Test
    void aProgramSearchingTheFileSystemFindsNoBenchmarkFilesAndNoOtherDirectory(@TempDir Path otherRun)
            throws Exception {
        assumeTrue(box.isolation().namespaced(), "needs namespace isolation");
        Path datasets =
                SharedFiles.shared().resolve("datasets").toAbsolutePath().normalize();
        assertThat(datasets)
                .as("the answers a program must not read exist on this machine")
                .isDirectory();
        Path secret = otherRun.resolve("answers.txt");
        Files.writeString(secret, "42");
        String search = """
                import os
                found = []
                for root, dirs, files in os.walk('/', onerror=lambda e: None):
                    if root.startswith(('/proc', '/sys', '/usr', '/etc', '/lib')):
                        dirs[:] = []
                        continue
                    found += [os.path.join(root, f) for f in files if f.endswith(('.jsonl', '.parquet'))]
                print(len(found), found[:3])
                print(os.path.exists(%s), os.path.exists(%s), os.path.exists(%s))
                try:
                    print(open(%s).read())
                except OSError as e:
                    print('refused', type(e).__name__)
                """.formatted(
                        py(datasets),
                        py(Path.of(".").toAbsolutePath().normalize()),
                        py(Path.of(System.getProperty("user.home"))),
                        py(secret));
        Execution e = box.run(search, "");
        assertThat(e.ok()).as(e.summary()).isTrue();
        List<String> lines = e.stdout().lines().toList();
        assertThat(lines.get(0)).as("benchmark files found").startsWith("0 ");
        assertThat(lines.get(1))
                .as("the datasets, the project, the home directory")
                .isEqualTo("False False False");
        assertThat(lines.get(2)).as("another run's directory").isEqualTo("refused FileNotFoundError");
    }

    private static String py(Path p) {
        return "'" + p.toString().replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    @Tag("heavy")
    @Test
    void aForkBombIsContainedAndLeavesNoProcessBehind() {
        Execution e = box.run(
                "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
                "",
                box.limits().withWallTime(Duration.ofSeconds(2)));
        assertThat(e.status()).isIn(Execution.Status.TIMEOUT, Execution.Status.ERROR);
        assertNothingLeftBehind();
        assertThat(box.run("print('still fine')", "").stdout()).isEqualTo("still fine\n");
    }

    @Test
    void aBoundedPoolRunsManyProgramsConcurrently() throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Execution>> runs = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                runs.add(pool.submit(() -> box.run("print(%d * %d)".formatted(n, n), "")));
            }
            for (int i = 0; i < 8; i++) {
                assertThat(runs.get(i).get().stdout().strip()).isEqualTo(Integer.toString(i * i));
            }
        }
    }

    @Tag("heavy")
    @Test
    void aChildHoldingTheOutputOpenDoesNotHoldTheRun() {
        Execution e = box.run("""
                import os, time
                if os.fork() == 0:
                    time.sleep(30)  # keeps stdout and stderr open
                    os._exit(0)
                print('parent done', flush=True)
                """, "");
        assertThat(e.status()).as(e.summary()).isEqualTo(Execution.Status.OK);
        assertThat(e.stdout()).isEqualTo("parent done\n");
        assertThat(e.wallMs())
                .as("returned without waiting for the child")
                .isLessThan(box.limits().wallTime().toMillis());
        assertNothingLeftBehind();
    }

    @Tag("heavy")
    @Test
    void aDoubleForkedDaemonDiesWithTheRunAndWithItsTimeout() {
        String daemon = """
                import os, time
                if os.fork() == 0:
                    os.setsid()
                    if os.fork() == 0:
                        os.chdir('/')
                        null = os.open('/dev/null', os.O_RDWR)
                        for fd in (0, 1, 2):
                            os.dup2(null, fd)
                        time.sleep(30)
                    os._exit(0)
                os.wait()
                print('daemon started', flush=True)
                """;
        Execution exited = box.run(daemon, "");
        assertThat(exited.stdout())
                .as(exited.summary() + " stderr: " + exited.stderr())
                .isEqualTo("daemon started\n");
        assertNothingLeftBehind();
        // the parent waits without burning CPU: withWallTime sets the CPU limit to the same second, and a busy loop
        // raced the two (CPU_LIMIT about as often as TIMEOUT on an idle machine)
        Execution timedOut = box.run(
                daemon + "while True:\n    time.sleep(0.05)\n", "", box.limits().withWallTime(Duration.ofSeconds(1)));
        assertThat(timedOut.status()).isEqualTo(Execution.Status.TIMEOUT);
        assertNothingLeftBehind();
    }

    /** Forks sleeping children until the process limit stops it; prints how many it started. */
    static final String FORK_LOOP = """
                import os, time
                n = 0
                for _ in range(2000):
                    try:
                        pid = os.fork()
                    except OSError:
                        break
                    if pid == 0:
                        time.sleep(20)
                        os._exit(0)
                    n += 1
                print(n)
                """;

    /** The children {@link #FORK_LOOP} started in {@code box}. */
    static int childrenForked(Sandbox box) {
        Execution e = box.run(FORK_LOOP, "");
        assertThat(e.ok()).as(e.summary()).isTrue();
        return Integer.parseInt(e.stdout().strip());
    }

    @Tag("heavy")
    @Test
    void forksAreBounded() {
        assertThat(childrenForked(box))
                .as("children started (the limit is %d processes)", box.processBound())
                .isLessThan(box.processBound());
        assertNothingLeftBehind();
    }

    /**
     * Overlapping runs on the box's two slots (A; B while A holds its children; C once A has ended, while B holds
     * its): no run inherits the share of one that ended while it ran. When a run's limit counted the other runs'
     * processes, B's limit held A's children and C's held B's larger count, so C could start three shares.
     */
    @Tag("heavy")
    @Test
    void overlappingRunsDoNotRaiseEachOthersProcessLimit() throws Exception {
        String forkFor2s = """
                import os, time
                start = time.time()
                n = 0
                while time.time() < start + 2.0:
                    try:
                        pid = os.fork()
                    except OSError:
                        time.sleep(0.02)
                        continue
                    if pid == 0:
                        time.sleep(20)
                        os._exit(0)
                    n += 1
                print(n)
                """;
        SandboxLimits longer = box.limits().withWallTime(Duration.ofSeconds(5));
        try (var pool = Executors.newFixedThreadPool(3)) {
            List<Future<Execution>> runs = new ArrayList<>();
            for (long wait : new long[] {0, 1000, 1400}) { // A at 0 s, B at 1 s, C at 2.4 s: after A, before B ends
                Thread.sleep(wait);
                runs.add(pool.submit(() -> box.run(forkFor2s, "", longer)));
            }
            for (var f : runs) {
                Execution e = f.get();
                assertThat(e.ok()).as(e.summary()).isTrue();
                assertThat(Integer.parseInt(e.stdout().strip()))
                        .as("children of one of three overlapping runs (the bound is %d)", box.processBound())
                        .isLessThan(box.processBound());
            }
        }
        assertNothingLeftBehind();
    }

    /**
     * Another sandbox of the same user (a second trainer) holding its processes does not starve this one's runs: the
     * kernel counts its processes into every limit of the user, so this sandbox counts them as outside its runs.
     */
    @Tag("heavy")
    @Test
    void anotherSandboxsProcessesDoNotStarveThisOnesRuns() throws Exception {
        Sandbox other = open();
        String holdChildren = """
                import os, time
                n = 0
                for i in range(%d):
                    try:
                        pid = os.fork()
                    except OSError:
                        break
                    if pid == 0:
                        time.sleep(4)
                        os._exit(0)
                    n += 1
                print(n, flush=True)
                time.sleep(4)
                """.formatted(box.limits().processes() - 2);
        String forkFive = """
                import os
                pids = [os.fork() for _ in range(1)]
                kids = []
                for i in range(5):
                    pid = os.fork()
                    if pid == 0:
                        os._exit(0)
                    kids.append(pid)
                for k in kids:
                    os.waitpid(k, 0)
                if pids[0] == 0:
                    os._exit(0)
                os.waitpid(pids[0], 0)
                print('forked')
                """;
        SandboxLimits longer = box.limits().withWallTime(Duration.ofSeconds(8));
        try (var pool = Executors.newSingleThreadExecutor()) {
            Future<Execution> holding = pool.submit(() -> other.run(holdChildren, "", longer));
            Thread.sleep(1500); // its children are up
            Execution e = box.run(forkFive, "");
            assertThat(e.status()).as(e.summary()).isEqualTo(Execution.Status.OK);
            assertThat(e.stdout().strip()).isEqualTo("forked");
            assertThat(holding.get().ok()).isTrue();
        }
        assertNothingLeftBehind();
    }

    @Test
    void theRunsDirectoryIsCappedInSizeThoughEachFileIsUnderTheFileCap() {
        SandboxLimits capped = box.limits().withDirBytes(32L << 20); // files of 8 MiB each pass the 16 MiB file cap
        Execution e = box.run("""
                import sys
                for i in range(64):
                    with open('f%d' % i, 'wb') as f:
                        f.write(b'0' * (8 << 20))
                    print(i + 1, flush=True)
                """, "", capped);
        assertThat(e.status()).as(e.summary()).isIn(Execution.Status.ERROR, Execution.Status.DISK_LIMIT);
        int written = e.stdout().lines().mapToInt(Integer::parseInt).max().orElse(0);
        assertThat(written * 8)
                .as("MiB written of 512 asked")
                .isLessThanOrEqualTo(box.isolation().namespaced() ? 32 : 160);
        if (box.isolation().namespaced()) {
            assertThat(e.stderr()).contains("No space left on device");
        }
    }

    @Test
    void aForgedSetupFailureIsTheProgramsOwnError() {
        Execution e = box.run("""
                import os, sys
                for p in (os.getcwd() + '.setup-failed', os.path.join(os.getcwd(), '.setup-failed')):
                    try:
                        open(p, 'w').close()
                    except OSError:
                        pass
                sys.exit(120)
                """, "");
        assertThat(e.status()).isEqualTo(Execution.Status.ERROR);
        assertThat(e.exitCode()).isEqualTo(120);
    }

    private static String pyStr(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** No process of any of this sandbox's runs is alive (each has its run's directory as TMPDIR). */
    void assertNothingLeftBehind() {
        byte[] marker = ("TMPDIR=" + box.base()).getBytes(StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos(); // a killed process takes a moment to go
        List<Long> left;
        do {
            left = new ArrayList<>();
            try (var procs = Files.list(Path.of("/proc"))) {
                for (Path p : procs.toList()) {
                    String name = p.getFileName().toString();
                    if (name.chars().allMatch(Character::isDigit) && environHas(p, marker)) {
                        left.add(Long.parseLong(name));
                    }
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline && pause());
        assertThat(left).as("processes of the sandbox's runs still alive").isEmpty();
    }

    private static boolean environHas(Path proc, byte[] marker) {
        try {
            return BasicReaper.indexOf(Files.readAllBytes(proc.resolve("environ")), marker) >= 0;
        } catch (Exception gone) {
            return false;
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(50);
            return true;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}

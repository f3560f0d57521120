package org.pettingllms.envs.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.envs.sql.SqlRunner.Outcome;

/**
 * A query that sorts gigabytes it makes up itself: the process does not grow with it (SQLite's sorts and temporary
 * tables go to capped temporary files, not memory), and the temporary files are capped too.
 */
class SqlMemoryTest {
    /** Two million rows of 2,000 random bytes sorted: about 4 GB to sort, from a database with nothing in it. */
    static final String SORT_BOMB = "SELECT count(*) FROM (SELECT n FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL"
            + " SELECT n+1 FROM r LIMIT 2000000) SELECT n, randomblob(2000) b FROM r) ORDER BY b)";

    @TempDir
    static Path dir;

    static Path db;

    @BeforeAll
    static void create() throws Exception {
        db = dir.resolve("empty.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t(x)");
        }
    }

    @Tag("heavy")
    @Test
    void theSortBombGrowsTheProcessByLessThan100MegabytesAtTheDefaultDeadline() throws Exception {
        SqlRunner runner = new SqlRunner(db, SqlRunner.Limits.DEFAULT);
        runner.run("SELECT 1"); // the driver's native library and caches loaded before the baseline
        long growth = peakGrowth(() -> {
            SqlRunner.Result r = runner.run(SORT_BOMB);
            assertThat(r.outcome()).as(r.message()).isIn(Outcome.TIMEOUT, Outcome.ERROR);
        });
        assertThat(growth >> 20).as("MiB the process grew by").isLessThan(100);
    }

    @Test
    void aWideRowOfLongValuesIsBoundedByTheColumnCapAndReadBackNoFurtherThanTheByteCap() throws Exception {
        SqlRunner runner = new SqlRunner(db, SqlRunner.Limits.DEFAULT);
        String wide = "WITH t(a) AS (SELECT randomblob(262144)) SELECT a" + ", a".repeat(SqlRunner.MAX_COLUMNS + 50)
                + " FROM t";
        SqlRunner.Result refused = runner.run(wide);
        assertThat(refused.outcome()).isEqualTo(Outcome.ERROR);
        assertThat(refused.message()).contains("too many columns");
        String allowed = "WITH t(a) AS (SELECT randomblob(262144)) SELECT a" + ", a".repeat(SqlRunner.MAX_COLUMNS - 1)
                + " FROM t";
        long growth = peakGrowth(() -> {
            SqlRunner.Result r = runner.run(allowed);
            assertThat(r.outcome()).isEqualTo(Outcome.TRUNCATED);
            assertThat(r.rows()).isEmpty(); // the row passed the byte cap before it was whole
        });
        assertThat(growth >> 20).as("MiB the process grew by").isLessThan(100);
        assertThat(runner.run("SELECT randomblob(262145)").outcome()).isEqualTo(Outcome.ERROR);
    }

    @Test
    void itsTemporaryFilesAreCappedAndGoneAfterwards() throws Exception {
        SqlRunner.Limits d = SqlRunner.Limits.DEFAULT;
        SqlRunner runner = new SqlRunner(
                db, new SqlRunner.Limits(Duration.ofMinutes(5), d.maxRows(), d.maxBytes(), d.maxValue(), 32L << 20));
        long[] ms = new long[1];
        long growth = peakGrowth(() -> {
            long t = System.nanoTime();
            SqlRunner.Result r = runner.run(SORT_BOMB);
            ms[0] = (System.nanoTime() - t) / 1_000_000;
            assertThat(r.outcome()).isEqualTo(Outcome.ERROR);
            assertThat(r.message()).contains("more than 32 MiB of temporary storage");
        });
        assertThat(ms[0])
                .as("interrupted by the cap, long before its deadline")
                .isLessThan(Duration.ofMinutes(4).toMillis());
        assertThat(growth >> 20).as("MiB the process grew by").isLessThan(100);
        assertThat(TempFiles.openBytes()).isZero();
        try (var left = Files.list(TempFiles.dir())) {
            assertThat(left).isEmpty();
        }
        assertThat(runner.run("SELECT count(*) FROM t").rows()).containsExactly(List.of(0L));
    }

    @Tag("heavy")
    @Test
    void aQuerysVerdictIsItsWorkNotTheClockSoLoadDoesNotChangeIt() throws Exception {
        SqlRunner.Limits d = SqlRunner.Limits.DEFAULT;
        SqlRunner runner = new SqlRunner(
                db, new SqlRunner.Limits(Duration.ofMillis(300), d.maxRows(), d.maxBytes(), d.maxValue()));
        // about 7.6 million steps (the limit is 12 million): about 200 ms on an idle core, more on a busy one
        String fits = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r LIMIT 450000) SELECT sum(n) FROM r";
        String over = fits.replace("450000", "900000");
        assertThat(runner.run(fits).outcome()).isEqualTo(Outcome.OK);
        assertThat(runner.run(over).outcome()).isEqualTo(Outcome.TIMEOUT);
        // the same queries while four threads keep both cores busy: the same verdicts
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> hogs = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            hogs.add(Thread.ofPlatform().daemon().start(() -> {
                long x = 0;
                while (!stop.get()) {
                    x += System.nanoTime() % 7;
                }
                if (x == 42) {
                    System.out.print("");
                }
            }));
        }
        try {
            for (int k = 0; k < 3; k++) {
                SqlRunner.Result r = runner.run(fits);
                assertThat(r.outcome()).as(r.message()).isEqualTo(Outcome.OK);
                assertThat(runner.run(over).outcome()).isEqualTo(Outcome.TIMEOUT);
            }
        } finally {
            stop.set(true);
            for (Thread h : hogs) {
                h.join();
            }
        }
    }

    /** The most this process's resident memory grew above its level before {@code work}, sampled every 20 ms. */
    static long peakGrowth(ThrowingRunnable work) throws Exception {
        System.gc();
        long before = rss();
        AtomicLong peak = new AtomicLong(before);
        Thread sampler = Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                peak.accumulateAndGet(rss(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        try {
            work.run();
        } finally {
            sampler.interrupt();
            sampler.join();
        }
        return Math.max(0, Math.max(peak.get(), rss()) - before);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Resident set size in bytes, from /proc/self/statm (pages). */
    static long rss() {
        try {
            String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split(" ");
            return Long.parseLong(f[1]) * 4096;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}

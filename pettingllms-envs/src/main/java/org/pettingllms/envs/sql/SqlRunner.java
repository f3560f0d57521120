package org.pettingllms.envs.sql;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;
import org.sqlite.SQLiteOpenMode;

/**
 * Runs model-written SQL on a SQLite database file, as untrusted code runs in the sandbox: the file is opened in place
 * (no copy) read-only and immutable, {@code query_only}; only one {@code SELECT} passes ({@link SqlStatement}); no
 * database can be attached (the attach limit is 0) and extensions cannot load; strings and blobs are capped
 * ({@code SQLITE_LIMIT_LENGTH}); the query is interrupted by SQLite's progress handler at its deadline (not waited
 * for); at most {@code maxRows} rows and {@code maxBytes} bytes are read back. A query that fails, is refused or is
 * cut short is a {@link Result} that says so, never an exception: the episode is scored and the run goes on.
 *
 * <p>Memory. This SQLite build counts no memory ({@code SQLITE_DEFAULT_MEMSTATUS=0}), so {@code hard_heap_limit}
 * is never enforced; what bounds a query's native memory instead is where SQLite keeps what does not fit: temporary
 * tables, sorts, the queues of recursive queries and automatic indexes go to temporary files ({@code temp_store =
 * FILE}), each database's page cache is {@link #CACHE_KIB} KiB, and no file is memory-mapped. The temporary files
 * live in one folder of this process ({@link TempFiles}; SQLite unlinks them as it opens them), and the progress
 * handler interrupts a query once this process's open files there pass {@link Limits#maxTempBytes}: the cap is on the
 * temporary storage of all queries running at that moment together.
 */
public final class SqlRunner {
    /**
     * Columns a query's result (or a table it reads) may have: 200 (BIRD's widest table has 115), so one row of
     * values at the longest allowed holds at most 200 times {@link Limits#maxValue}.
     */
    static final int MAX_COLUMNS = 200;

    /** Page cache of each database a query uses (the main file and its temporary database), in KiB. */
    static final int CACHE_KIB = 4096;
    /** How often (virtual machine steps) the progress handler counts and looks at the clock. */
    private static final int CHECK_EVERY = 1_000;
    /**
     * A query's time limit is a work limit: SQLite virtual machine steps, this many per millisecond of the limit (what
     * queries run on one idle core of this project's machine: 26,000 for a sort to 64,000 for a join, measured), so
     * a query's verdict does not depend on what else the machine runs. The wall clock stops only a query that stalls,
     * at {@link #WALL_SLACK} times the limit plus a second.
     */
    static final long STEPS_PER_MS = 40_000;

    static final int WALL_SLACK = 4;
    /** How often (nanoseconds) the progress handler measures the temporary files. */
    private static final long MEASURE_EVERY_NANOS = 10_000_000;

    /**
     * @param time     how long a query may run
     * @param maxRows  rows read back; more make the result truncated
     * @param maxBytes bytes of values read back; more make the result truncated
     * @param maxValue the longest string or blob a query may build
     * @param maxTempBytes temporary storage (sorts, temporary tables) of the queries running at once, together
     */
    public record Limits(Duration time, int maxRows, long maxBytes, int maxValue, long maxTempBytes) {
        /** The temporary storage cap when none is given. */
        public static final long DEFAULT_TEMP_BYTES = 256L << 20;

        /** 256 KiB the longest value: with {@link #MAX_COLUMNS} columns a row holds at most 50 MiB. */
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(2), 1_000, 1L << 20, 256 << 10);

        public Limits(Duration time, int maxRows, long maxBytes, int maxValue) {
            this(time, maxRows, maxBytes, maxValue, DEFAULT_TEMP_BYTES);
        }

        public Limits {
            if (time.isNegative() || time.isZero() || maxRows < 1 || maxBytes < 1 || maxValue < 1 || maxTempBytes < 1) {
                throw new IllegalArgumentException("SQL limits must be positive");
            }
        }
    }

    /** Why a query gave no (whole) result. */
    public enum Outcome {
        /** every row read */
        OK,
        /** rows read up to a limit; the rest were not */
        TRUNCATED,
        /** not run: not a single SELECT */
        REFUSED,
        /** SQLite's error (a wrong name, a value too big, a write refused) */
        ERROR,
        /** interrupted: more work than its limit ({@link #STEPS_PER_MS}), or stalled past the wall clock */
        TIMEOUT
    }

    /**
     * A query's answer: column names and rows of values as stored ({@code Long}, {@code Double}, {@code String},
     * {@link Blob}, or null), what became of it, and SQLite's message when it failed.
     */
    public record Result(List<String> columns, List<List<Object>> rows, Outcome outcome, String message) {
        public boolean ok() {
            return outcome == Outcome.OK;
        }

        static Result failed(Outcome outcome, String message) {
            return new Result(List.of(), List.of(), outcome, message);
        }
    }

    /** A blob value, compared by its bytes. */
    public record Blob(String hex) {
        @Override
        public String toString() {
            return "x'" + hex + "'";
        }
    }

    private final Path database;
    private final Limits limits;

    public SqlRunner(Path database, Limits limits) {
        if (!Files.isRegularFile(database)) {
            throw new IllegalArgumentException("no SQLite database at " + database);
        }
        this.database = database.toAbsolutePath().normalize();
        this.limits = limits;
    }

    public Path database() {
        return database;
    }

    /** Runs {@code sql}; never throws for what the query does. */
    public Result run(String sql) {
        String refused = SqlStatement.refusal(sql);
        if (refused != null) {
            return Result.failed(Outcome.REFUSED, refused);
        }
        long deadline = System.nanoTime()
                + limits.time().multipliedBy(WALL_SLACK).plusSeconds(1).toNanos();
        long maxCalls = Math.max(1, limits.time().toMillis() * STEPS_PER_MS / CHECK_EVERY);
        boolean[] timedOut = {false};
        boolean[] overTemp = {false};
        try (Connection c = open()) {
            ProgressHandler.setHandler(c, CHECK_EVERY, new ProgressHandler() {
                private long measured = System.nanoTime();
                private long calls;

                @Override
                protected int progress() {
                    long now = System.nanoTime();
                    if (++calls > maxCalls || now > deadline) {
                        timedOut[0] = true;
                        return 1; // SQLite stops the statement with SQLITE_INTERRUPT
                    }
                    if (now - measured > MEASURE_EVERY_NANOS) {
                        measured = now;
                        if (TempFiles.openBytes() > limits.maxTempBytes()) {
                            overTemp[0] = true;
                            return 1;
                        }
                    }
                    return 0;
                }
            });
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                return read(rs);
            }
        } catch (SQLException e) {
            if (timedOut[0]) {
                return Result.failed(
                        Outcome.TIMEOUT,
                        "interrupted: more work than its limit ("
                                + limits.time().toMillis() + " ms, "
                                + limits.time().toMillis() * STEPS_PER_MS / 1_000_000 + " million SQLite steps)");
            }
            if (overTemp[0]) {
                return Result.failed(
                        Outcome.ERROR,
                        "interrupted: more than " + (limits.maxTempBytes() >> 20)
                                + " MiB of temporary storage (sorts and temporary tables)");
            }
            return Result.failed(Outcome.ERROR, message(e));
        } catch (RuntimeException e) { // a driver failure on hostile input is the query's failure, not the run's
            return Result.failed(Outcome.ERROR, e.toString());
        }
    }

    private Result read(ResultSet rs) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int n = meta.getColumnCount();
        List<String> columns = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            columns.add(meta.getColumnLabel(i));
        }
        List<List<Object>> rows = new ArrayList<>();
        long bytes = 0;
        while (rs.next()) {
            if (rows.size() == limits.maxRows()) {
                return new Result(columns, rows, Outcome.TRUNCATED, "more than " + limits.maxRows() + " rows");
            }
            List<Object> row = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                Object v = value(rs.getObject(i));
                bytes += size(v);
                if (bytes > limits.maxBytes()) { // checked per value: a wide row of long values is not kept whole
                    return new Result(columns, rows, Outcome.TRUNCATED, "more than " + limits.maxBytes() + " bytes");
                }
                row.add(v);
            }
            rows.add(row);
        }
        return new Result(columns, rows, Outcome.OK, "");
    }

    private static Object value(Object v) {
        if (v instanceof Integer i) {
            return i.longValue();
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        if (v instanceof byte[] b) {
            return new Blob(HexFormat.of().withUpperCase().formatHex(b));
        }
        return v;
    }

    /** A value's bytes as the read-back cap counts them. */
    static long size(Object v) {
        if (v instanceof String s) {
            return s.length();
        }
        if (v instanceof Blob b) {
            return b.hex().length() / 2;
        }
        return 8;
    }

    private static String message(SQLException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.replace('\n', ' ');
    }

    /**
     * The database file in place, read-only and immutable (SQLite takes no locks and never writes beside it), with
     * the limits set before the query is prepared.
     */
    private Connection open() throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setOpenMode(SQLiteOpenMode.READONLY);
        config.setOpenMode(SQLiteOpenMode.OPEN_URI);
        config.resetOpenMode(SQLiteOpenMode.READWRITE);
        config.resetOpenMode(SQLiteOpenMode.CREATE);
        config.setReadOnly(true);
        config.enableLoadExtension(false);
        config.setTempStore(SQLiteConfig.TempStore.FILE);
        TempFiles.init();
        Connection c = config.createConnection("jdbc:sqlite:" + database.toUri() + "?mode=ro&immutable=1");
        try {
            SQLiteConnection sc = c.unwrap(SQLiteConnection.class);
            sc.setLimit(SQLiteLimits.SQLITE_LIMIT_ATTACHED, 0);
            sc.setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH, limits.maxValue());
            // a row is built whole before it is read: its columns times the longest value bound its memory
            sc.setLimit(SQLiteLimits.SQLITE_LIMIT_COLUMN, MAX_COLUMNS);
            sc.setLimit(SQLiteLimits.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1_000);
            sc.setLimit(SQLiteLimits.SQLITE_LIMIT_SQL_LENGTH, 100_000);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA query_only=1");
                s.execute("PRAGMA main.cache_size=-" + CACHE_KIB);
                s.execute("PRAGMA temp.cache_size=-" + CACHE_KIB);
                s.execute("PRAGMA mmap_size=0");
                s.execute("PRAGMA threads=0");
            }
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }
}

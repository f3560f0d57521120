package org.pettingllms.envs.sql;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.pettingllms.envs.data.DatasetException;

/**
 * Each gold query's result, run once: at load for dataset rows (a gold query that fails, times out or returns too
 * many rows is the dataset's error, naming its row, before any training), at first use for generated problems; every
 * candidate is then compared with the kept result instead of running the gold query again. Results larger than
 * {@link #KEEP_BYTES} are not kept (they ran whole once, and run again when needed), so the cache stays small on
 * datasets with large answers.
 */
final class GoldResults {
    /** The largest result kept, in bytes of values. */
    static final long KEEP_BYTES = 256L << 10;

    private record Key(String database, String gold) {}

    private final SqlRunner.Limits limits;
    private final Map<Key, SqlRunner.Result> kept = new ConcurrentHashMap<>();
    private final AtomicLong runs = new AtomicLong();

    GoldResults(SqlRunner.Limits limits) {
        this.limits = limits;
    }

    /** The gold query's rows, run whole. */
    SqlRunner.Result of(SqlItem item) {
        SqlRunner.Result r = result(Path.of(item.database()), item.gold());
        if (!r.ok()) {
            throw new DatasetException("the gold query of " + item.id() + " does not run whole on " + item.database()
                    + ": " + describe(r));
        }
        return r;
    }

    /** Why {@code gold} does not run whole on {@code database} ("timeout: ..."), or null when it does. */
    String failure(Path database, String gold) {
        SqlRunner.Result r = result(database, gold);
        return r.ok() ? null : describe(r);
    }

    /** Gold queries run so far (a check that they run once). */
    long runs() {
        return runs.get();
    }

    private SqlRunner.Result result(Path database, String gold) {
        Key key = new Key(database.toAbsolutePath().normalize().toString(), gold);
        SqlRunner.Result r = kept.get(key);
        if (r != null) {
            return r;
        }
        runs.incrementAndGet();
        r = new SqlRunner(database, limits).run(gold);
        if (!r.ok()) {
            // a failure is not kept, and the query runs once more: the temporary-storage cap counts every query
            // running at that moment, so a candidate beside it may have interrupted it
            runs.incrementAndGet();
            r = new SqlRunner(database, limits).run(gold);
        }
        if (r.ok() && bytes(r.rows()) <= KEEP_BYTES) {
            kept.putIfAbsent(key, r);
        }
        return r;
    }

    private static String describe(SqlRunner.Result r) {
        return r.outcome().name().toLowerCase(java.util.Locale.ROOT) + ": " + r.message();
    }

    private static long bytes(List<List<Object>> rows) {
        long sum = 0;
        for (List<Object> row : rows) {
            for (Object v : row) {
                sum += SqlRunner.size(v);
            }
        }
        return sum;
    }
}

package org.pettingllms.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.pettingllms.envs.sql.ExecutionMatch;
import org.pettingllms.envs.sql.SqlRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code check-sql}: the SQL reward's execution match, shown: both queries run on the database as the task runs a
 * model's query (read-only, one SELECT, time and size limits), then the verdict and its reason, so that a user can
 * see why a reward was 0 or 1.
 */
@Command(
        name = "check-sql",
        mixinStandardHelpOptions = true,
        description = "Run a predicted and a gold SQL query on a SQLite database file as the SQL task does and print "
                + "both results and the execution-match verdict. Exit code 0 whether or not the query is right.")
final class CheckSqlCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATABASE", description = "a SQLite database file")
    Path database;

    @Parameters(index = "1", paramLabel = "PREDICTED", description = "the predicted query (or @FILE)")
    String predicted;

    @Parameters(index = "2", paramLabel = "GOLD", description = "the gold query (or @FILE)")
    String gold;

    @Option(names = "--timeout-ms", defaultValue = "2000", description = "time each query may run")
    long timeoutMs;

    @Option(names = "--rows", defaultValue = "10", description = "rows of each result to print")
    int show;

    @Mixin
    CheckIo io = new CheckIo();

    @Override
    public Integer call() throws Exception {
        if (timeoutMs < 1) {
            throw new IllegalArgumentException("--timeout-ms must be >= 1, got " + timeoutMs);
        }
        SqlRunner.Limits d = SqlRunner.Limits.DEFAULT;
        SqlRunner runner = new SqlRunner(
                database, new SqlRunner.Limits(Duration.ofMillis(timeoutMs), d.maxRows(), d.maxBytes(), d.maxValue()));
        ExecutionMatch.Verdict v = ExecutionMatch.check(runner, CheckIo.text(predicted), CheckIo.text(gold));
        return io.print(
                () -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("correct", v.correct());
                    m.put("reason", v.reason());
                    m.put("predicted", result(v.predicted()));
                    m.put("gold", result(v.gold()));
                    return m;
                },
                out -> {
                    print(out, "gold", v.gold());
                    print(out, "predicted", v.predicted());
                    out.println(CheckIo.verdict(v.correct(), v.reason()));
                });
    }

    private static Map<String, Object> result(SqlRunner.Result r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outcome", r.outcome().name().toLowerCase());
        m.put("message", r.message());
        m.put("columns", r.columns());
        m.put(
                "rows",
                r.rows().stream()
                        .map(row -> row.stream().map(CheckSqlCommand::shown).toList())
                        .toList());
        return m;
    }

    private static Object shown(Object v) {
        return v instanceof SqlRunner.Blob b ? b.toString() : v;
    }

    private void print(PrintWriter out, String which, SqlRunner.Result r) {
        String head = String.format("%-11s", which + ":");
        if (!r.ok()) {
            out.println(head + r.outcome().name().toLowerCase() + ": " + r.message());
            if (r.rows().isEmpty()) {
                return;
            }
        } else {
            out.println(head + r.rows().size() + " rows " + r.columns());
        }
        List<List<Object>> rows = r.rows();
        for (int i = 0; i < Math.min(show, rows.size()); i++) {
            out.println("  " + rows.get(i).stream().map(CheckSqlCommand::shown).toList());
        }
        if (rows.size() > show) {
            out.println("  ... " + (rows.size() - show) + " more");
        }
    }
}

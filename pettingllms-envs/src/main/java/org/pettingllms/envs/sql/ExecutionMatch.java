package org.pettingllms.envs.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL reward's check, as SkyRL-SQL and Spider's execution accuracy have it: the predicted and the gold query run
 * on the same database, and the predicted one is right when its rows equal the gold rows as a multiset, or as a list
 * where the gold query orders its result ({@link SqlStatement#ordersResult}). Column names do not matter, the number
 * of columns does; an integer and a real of the same value are equal (SQLite's {@code 1 = 1.0}, Python's too).
 */
public final class ExecutionMatch {
    private ExecutionMatch() {}

    /** The verdict and why, with both results for display. */
    public record Verdict(boolean correct, String reason, SqlRunner.Result predicted, SqlRunner.Result gold) {}

    /**
     * Runs both queries with {@code runner}; a gold query that does not run whole is the data's fault and an
     * {@link IllegalArgumentException} naming it.
     */
    public static Verdict check(SqlRunner runner, String predicted, String gold) {
        SqlRunner.Result g = runner.run(gold);
        if (!g.ok()) {
            throw new IllegalArgumentException("the gold query does not run on " + runner.database() + ": "
                    + g.outcome().name().toLowerCase() + ": " + g.message());
        }
        return check(runner, predicted, g, gold);
    }

    /** Runs {@code predicted} and compares it with the gold query's result {@code g}, already run whole. */
    public static Verdict check(SqlRunner runner, String predicted, SqlRunner.Result g, String gold) {
        SqlRunner.Result p = runner.run(predicted);
        if (!p.ok()) {
            return new Verdict(false, "the query " + describe(p), p, g);
        }
        if (!p.rows().isEmpty()
                && !g.rows().isEmpty()
                && p.columns().size() != g.columns().size()) {
            return new Verdict(
                    false,
                    p.columns().size() + " columns where the gold query has "
                            + g.columns().size(),
                    p,
                    g);
        }
        List<List<Object>> a = normal(p.rows());
        List<List<Object>> b = normal(g.rows());
        if (SqlStatement.ordersResult(gold)) {
            return a.equals(b)
                    ? new Verdict(true, "the same " + b.size() + " rows in the gold query's order", p, g)
                    : new Verdict(false, difference(a, b) + " (the gold query orders its rows; order counts)", p, g);
        }
        return counts(a).equals(counts(b))
                ? new Verdict(true, "the same " + b.size() + " rows (as a multiset)", p, g)
                : new Verdict(false, difference(a, b) + " (compared as a multiset)", p, g);
    }

    private static String describe(SqlRunner.Result r) {
        return switch (r.outcome()) {
            case REFUSED -> "was refused: " + r.message();
            case ERROR -> "failed: " + r.message();
            case TIMEOUT -> "ran past its time: " + r.message();
            case TRUNCATED -> "returned too much: " + r.message();
            case OK -> "ran";
        };
    }

    private static String difference(List<List<Object>> predicted, List<List<Object>> gold) {
        if (predicted.size() != gold.size()) {
            return predicted.size() + " rows where the gold query has " + gold.size();
        }
        for (int i = 0; i < gold.size(); i++) {
            if (!predicted.get(i).equals(gold.get(i)) && !gold.contains(predicted.get(i))) {
                return "row " + predicted.get(i) + " is not in the gold result";
            }
        }
        return "the rows differ in order or in how often they repeat";
    }

    private static Map<List<Object>, Integer> counts(List<List<Object>> rows) {
        Map<List<Object>, Integer> m = new HashMap<>();
        rows.forEach(r -> m.merge(r, 1, Integer::sum));
        return m;
    }

    /** Rows with each real that holds an integer value written as that integer, so that 1 and 1.0 compare equal. */
    static List<List<Object>> normal(List<List<Object>> rows) {
        List<List<Object>> out = new ArrayList<>(rows.size());
        for (List<Object> row : rows) {
            List<Object> r = new ArrayList<>(row.size());
            for (Object v : row) {
                if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 0x1p53) {
                    r.add(d.longValue());
                } else if (v instanceof Double d && d == 0.0) {
                    r.add(0L); // -0.0
                } else {
                    r.add(v);
                }
            }
            out.add(r);
        }
        return out;
    }
}

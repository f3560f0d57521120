package org.pettingllms.envs.sql;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.TaskProvider;
import org.pettingllms.envs.data.Items;

/** Makes the SQL task by name: {@code sql} ({@code sql-v1}), on generated shop databases. */
public final class SqlTasks implements TaskProvider {
    /**
     * @param generator  the generated databases: {@code shop} ({@link ShopWorlds})
     * @param databases  where generated databases are written (one file per problem, reused)
     * @param timeoutMs  how long one query may run
     * @param maxRows    rows a query may return before it is cut short
     */
    public record SqlOptions(String generator, String databases, int timeoutMs, int maxRows) {
        public static final SqlOptions DEFAULT = new SqlOptions(ShopWorlds.NAME, "runs/sql-databases", 2000, 1000);

        public SqlOptions {
            if (!generator.equals(ShopWorlds.NAME)) {
                throw new IllegalArgumentException(
                        "generator must be " + ShopWorlds.NAME + ", got '" + generator + "'");
            }
            if (databases.isBlank() || timeoutMs < 1 || maxRows < 1) {
                throw new IllegalArgumentException("databases must name a folder; timeoutMs and maxRows must be >= 1");
            }
        }
    }

    @Override
    public Set<String> names() {
        return Set.of("sql");
    }

    @Override
    public SqlTask create(RunConfig.TaskSpec spec) {
        SqlOptions o = ConfigLoader.bindOptions(spec.options(), SqlOptions.DEFAULT, "task.options.", "task.options");
        List<String> roles = spec.roles().isEmpty() ? List.of(SqlTask.EXPLORER, SqlTask.WRITER) : spec.roles();
        Path dir = Path.of(o.databases());
        SqlRunner.Limits d = SqlRunner.Limits.DEFAULT;
        SqlRunner.Limits limits =
                new SqlRunner.Limits(Duration.ofMillis(o.timeoutMs()), o.maxRows(), d.maxBytes(), d.maxValue());
        return new SqlTask(
                roles,
                spec.maxTurns(),
                new Items.Generated<>(ShopWorlds.NAME, seed -> ShopWorlds.item(seed, dir)),
                limits);
    }
}

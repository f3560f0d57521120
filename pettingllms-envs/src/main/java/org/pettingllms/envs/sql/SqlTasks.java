package org.pettingllms.envs.sql;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.DatasetTaskProvider;
import org.pettingllms.envs.data.Items;

/**
 * Makes the SQL task by name: {@code sql} ({@code sql-v1}), on generated shop databases or on Spider- and BIRD-layout
 * files.
 */
public final class SqlTasks extends DatasetTaskProvider<SqlTasks.SqlOptions, SqlTask> {
    /**
     * @param generator the generated databases: {@code shop} ({@link ShopWorlds}); empty for dataset files
     * @param train     questions file of a Spider- or BIRD-layout dataset (JSON or JSONL); empty for evaluation only
     * @param test      its test questions file
     * @param databases generated: where the databases are written (one file per problem, reused); files: the folder
     *                  holding {@code <db_id>/<db_id>.sqlite}
     * @param timeoutMs how long one query may run
     * @param maxRows   rows a query may return before it is cut short
     */
    public record SqlOptions(String generator, String train, String test, String databases, int timeoutMs, int maxRows)
            implements DatasetOptions {
        public static final SqlOptions DEFAULT =
                new SqlOptions(ShopWorlds.NAME, "", "", "runs/sql-databases", 2000, 1000);

        public SqlOptions {
            if (databases.isBlank() || timeoutMs < 1 || maxRows < 1) {
                throw new IllegalArgumentException("databases must name a folder; timeoutMs and maxRows must be >= 1");
            }
        }
    }

    public SqlTasks() {
        super("sql", SqlOptions.DEFAULT, List.of(SqlTask.EXPLORER, SqlTask.WRITER));
    }

    @Override
    protected SqlTask create(SqlOptions o, List<String> roles, int maxTurns) {
        Path dir = Path.of(o.databases());
        SqlRunner.Limits d = SqlRunner.Limits.DEFAULT;
        SqlRunner.Limits limits =
                new SqlRunner.Limits(Duration.ofMillis(o.timeoutMs()), o.maxRows(), d.maxBytes(), d.maxValue());
        GoldResults gold = new GoldResults(limits);
        if (o.generator().isBlank() && o.databases().equals(SqlOptions.DEFAULT.databases())) {
            throw new ConfigException("config key 'task.options.databases': dataset files need the folder of"
                    + " their databases (<db_id>/<db_id>.sqlite), e.g. spider/database");
        }
        Items<SqlItem> items = DatasetSources.items(
                o,
                ShopWorlds.NAME,
                seed -> ShopWorlds.item(seed, dir),
                f -> SpiderRows.load(f, dir, gold),
                SqlItem.class);
        return new SqlTask(roles, maxTurns, items, limits, gold);
    }
}

package org.pettingllms.envs.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Tasks;

/** Spider's and BIRD's layouts read from local files, and the task made from them by config. */
class SpiderRowsTest {
    static Path layout(Path dir) throws Exception {
        Path db = dir.resolve("database/concert/concert.sqlite");
        Files.createDirectories(db.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE singer(id INTEGER PRIMARY KEY,\n  name TEXT, country TEXT)");
            s.execute("INSERT INTO singer VALUES (1, 'Joe', 'France'), (2, 'Ann', 'USA')");
        }
        Files.writeString(
                dir.resolve("spider.json"),
                "[{\"db_id\": \"concert\", \"question\": \"How many singers are there?\","
                        + " \"query\": \"SELECT count(*) FROM singer\"},"
                        + " {\"db_id\": \"concert\", \"question\": \"Names of singers from France?\","
                        + " \"query\": \"SELECT name FROM singer WHERE country = 'France'\"}]");
        Files.writeString(
                dir.resolve("bird.json"),
                "[{\"question_id\": 7, \"db_id\": \"concert\", \"question\": \"Who sings for the US?\","
                        + " \"evidence\": \"the US refers to country = 'USA'\","
                        + " \"SQL\": \"SELECT name FROM singer WHERE country = 'USA'\"}]");
        return dir;
    }

    @Test
    void spiderAndBirdRowsBecomeItemsWithTheDatabasesSchema(@TempDir Path dir) throws Exception {
        layout(dir);
        List<SqlItem> spider = SpiderRows.load(dir.resolve("spider.json"), dir.resolve("database"));
        assertThat(spider).hasSize(2);
        assertThat(spider.get(0).schema())
                .isEqualTo("CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, country TEXT)");
        assertThat(spider.get(1).gold()).isEqualTo("SELECT name FROM singer WHERE country = 'France'");
        SqlItem bird = SpiderRows.load(dir.resolve("bird.json"), dir.resolve("database"))
                .get(0);
        assertThat(bird.id()).isEqualTo("concert-7");
        assertThat(bird.question()).isEqualTo("Who sings for the US?\nHint: the US refers to country = 'USA'");
        assertThat(bird.keys()).isEmpty();
    }

    @Test
    void theTaskRunsOnDatasetFilesAndNamesWhatIsMissing(@TempDir Path dir) throws Exception {
        layout(dir);
        SqlTask t = (SqlTask) Tasks.create(new RunConfig.TaskSpec(
                "sql",
                org.pettingllms.core.data.PromptStyle.COMPACT,
                2,
                List.of(),
                Map.of(
                        "generator", "",
                        "test", dir.resolve("spider.json").toString(),
                        "databases", dir.resolve("database").toString())));
        var problems = t.problems(1).problems(Split.TEST, 0, 10);
        assertThat(problems).hasSize(2);
        SqlState s = t.initialState(problems.get(0));
        var written = t.step(
                s,
                SqlTask.WRITER,
                org.pettingllms.core.data.Completion.ofText(s.item().gold()));
        assertThat(written.success()).isTrue();
        Files.writeString(
                dir.resolve("bad.json"), "[{\"db_id\": \"nope\", \"question\": \"q\", \"query\": \"SELECT 1\"}]");
        assertThatThrownBy(() -> SpiderRows.load(dir.resolve("bad.json"), dir.resolve("database")))
                .hasMessageContaining("db_id")
                .hasMessageContaining("nope/nope.sqlite");
    }

    @Test
    void goldQueriesRunOnceAtLoadAndOneThatDoesNotRunWholeNamesItsRow(@TempDir Path dir) throws Exception {
        layout(dir);
        Map<String, Object> options = Map.of(
                "generator", "",
                "test", dir.resolve("spider.json").toString(),
                "databases", dir.resolve("database").toString());
        SqlTask t = (SqlTask) Tasks.create(
                new RunConfig.TaskSpec("sql", org.pettingllms.core.data.PromptStyle.COMPACT, 2, List.of(), options));
        assertThat(t.gold().runs()).as("gold queries run at load").isEqualTo(2);
        var problems = t.problems(1).problems(Split.TEST, 0, 10);
        for (String candidate : List.of("SELECT 2", "SELECT count(*) FROM singer", "SELECT count(id) FROM singer")) {
            SqlState s = t.initialState(problems.get(0));
            t.step(s, SqlTask.WRITER, org.pettingllms.core.data.Completion.ofText(candidate));
        }
        assertThat(t.gold().runs())
                .as("no gold query run again for a candidate")
                .isEqualTo(2);

        // BIRD has gold queries that run past the deadline or return more than the row cap: an error at load
        String slow = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r";
        Files.writeString(
                dir.resolve("hostile.jsonl"),
                "{\"db_id\": \"concert\", \"question\": \"q\", \"SQL\": \"SELECT 1\"}\n"
                        + "{\"db_id\": \"concert\", \"question\": \"q\", \"SQL\": \"" + slow + "\"}\n");
        Map<String, Object> hostile = Map.of(
                "generator",
                "",
                "test",
                dir.resolve("hostile.jsonl").toString(),
                "databases",
                dir.resolve("database").toString(),
                "timeoutMs",
                300);
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "sql", org.pettingllms.core.data.PromptStyle.COMPACT, 2, List.of(), hostile)))
                .isInstanceOf(org.pettingllms.envs.data.DatasetException.class)
                .hasMessageContaining("hostile.jsonl line 2")
                .hasMessageContaining("field 'SQL'")
                .hasMessageContaining("timeout")
                .hasMessageContaining("task.options.timeoutMs");
        Files.writeString(
                dir.resolve("many.jsonl"),
                "{\"db_id\": \"concert\", \"question\": \"q\", \"query\": \"SELECT a.id FROM singer a, singer b\"}\n");
        Map<String, Object> many = Map.of(
                "generator",
                "",
                "test",
                dir.resolve("many.jsonl").toString(),
                "databases",
                dir.resolve("database").toString(),
                "maxRows",
                3);
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "sql", org.pettingllms.core.data.PromptStyle.COMPACT, 2, List.of(), many)))
                .hasMessageContaining("many.jsonl line 1")
                .hasMessageContaining("field 'query'")
                .hasMessageContaining("truncated: more than 3 rows");
    }
}

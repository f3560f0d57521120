package org.pettingllms.envs.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.envs.sql.SqlRunner.Outcome;

/**
 * Hostile SQL against the runner: writes, schema changes, ATTACH of another file, VACUUM INTO, PRAGMAs, extension
 * loading, two statements, queries that never end, huge string builders, results too long. Each is contained (a
 * refusal, an error or a timeout, never an exception), the database file is unchanged byte for byte, nothing is
 * written beside it, and the runner answers a correct query the same way afterwards.
 */
class SqlRunnerTest {
    @TempDir
    static Path dir;

    static Path db;
    static Path other;
    static SqlRunner runner;

    @BeforeAll
    static void create() throws Exception {
        db = dir.resolve("shop.sqlite");
        other = dir.resolve("secret.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, code BLOB)");
            s.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 300) "
                    + "INSERT INTO item SELECT i, 'item ' || i, i * 1.5, x'00ff' FROM n");
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + other);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE answer(v TEXT)");
            s.execute("INSERT INTO answer VALUES ('gold')");
        }
        runner = new SqlRunner(db, new SqlRunner.Limits(Duration.ofMillis(1500), 100, 50_000, 100_000));
    }

    static String sha256(Path p) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
    }

    @Test
    void aSelectAnswersRowsAsStored() {
        SqlRunner.Result r =
                runner.run("SELECT id, name, price, code, NULL AS missing FROM item WHERE id <= 2 ORDER BY id");
        assertThat(r.outcome()).as(r.message()).isEqualTo(Outcome.OK);
        assertThat(r.columns()).containsExactly("id", "name", "price", "code", "missing");
        assertThat(r.rows().get(0)).containsExactly(1L, "item 1", 1.5, new SqlRunner.Blob("00FF"), null);
        assertThat(r.rows()).hasSize(2);
        assertThat(runner.run("  -- a comment first\n WITH t AS (SELECT 7 AS v) SELECT v FROM t;  /* trailing */ ")
                        .rows())
                .containsExactly(List.of(7L));
        assertThat(runner.run("SELECT ';' AS s, 'it''s' AS t, \"name\" FROM item WHERE id = 1")
                        .rows())
                .containsExactly(List.of(";", "it's", "item 1"));
        assertThat(runner.run("SELECT name FROM sqlite_master").rows()).containsExactly(List.of("item"));
    }

    @Tag("heavy")
    @Test
    void hostileQueriesAreContainedAndTheFileIsUnchanged() throws Exception {
        String before = sha256(db);
        String otherBefore = sha256(other);
        List<String> filesBefore;
        try (var s = Files.list(dir)) {
            filesBefore = s.map(Path::toString).sorted().toList();
        }
        String[][] refused = {
            {"DROP TABLE item", "DROP"},
            {"DELETE FROM item", "DELETE"},
            {"INSERT INTO item(id) VALUES (999)", "INSERT"},
            {"UPDATE item SET price = 0", "UPDATE"},
            {"CREATE TABLE x(a)", "CREATE"},
            {"ATTACH DATABASE '" + other + "' AS o", "ATTACH"},
            {"VACUUM INTO '" + dir.resolve("copy.sqlite") + "'", "VACUUM"},
            {"PRAGMA writable_schema = 1", "PRAGMA"},
            {"PRAGMA temp_store_directory = '/tmp'", "PRAGMA"},
            {"SELECT 1; DROP TABLE item", "one statement"},
            {"SELECT 1; ATTACH DATABASE '" + other + "' AS o", "one statement"},
            {"/* SELECT */ DELETE FROM item", "DELETE"},
            {"", "empty"},
            {"-- only a comment", "empty"},
            {"SELECT 'open", "unterminated"},
            {"REPLACE INTO item(id) VALUES (1)", "REPLACE"},
        };
        for (String[] q : refused) {
            SqlRunner.Result r = runner.run(q[0]);
            assertThat(r.outcome()).as(q[0]).isEqualTo(Outcome.REFUSED);
            assertThat(r.message()).as(q[0]).contains(q[1]);
        }
        String[][] errors = {
            // a write behind WITH passes the first keyword; the read-only connection refuses it
            {"WITH t AS (SELECT 1) DELETE FROM item", "readonly"},
            {"WITH t AS (SELECT 1) INSERT INTO item(id) SELECT 5000 FROM t", "readonly"},
            {"SELECT load_extension('/usr/lib/x86_64-linux-gnu/libm.so.6')", "not authorized"},
            {"SELECT * FROM o.answer", "no such table"},
            {"SELECT * FROM main.sqlite_master m, secret.sqlite_master", "no such table"},
            {"SELECT replace(hex(zeroblob(5000000)), '0', 'x')", "too big"},
            {"SELECT printf('%.*c', 200000000, 'x')", "too big"},
            {"SELECT randomblob(1000000000)", "too big"},
        };
        for (String[] q : errors) {
            SqlRunner.Result r = runner.run(q[0]);
            assertThat(r.outcome()).as(q[0]).isEqualTo(Outcome.ERROR);
            assertThat(r.message().toLowerCase()).as(q[0]).contains(q[1]);
        }
        String[] endless = {
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
            "SELECT count(*) FROM item a, item b, item c, item d, item e",
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c ORDER BY random() LIMIT 1",
        };
        for (String q : endless) {
            long start = System.nanoTime();
            SqlRunner.Result r = runner.run(q);
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(r.outcome()).as(q).isIn(Outcome.TIMEOUT, Outcome.ERROR);
            assertThat(seconds).as(q + " ended by its deadline, not by itself").isLessThan(6);
        }
        SqlRunner.Result many = runner.run("SELECT id FROM item");
        assertThat(many.outcome()).isEqualTo(Outcome.TRUNCATED);
        assertThat(many.rows()).hasSize(100);
        SqlRunner.Result wide = runner.run("SELECT randomblob(20000) FROM item");
        assertThat(wide.outcome()).isEqualTo(Outcome.TRUNCATED);
        assertThat(wide.message()).contains("bytes");

        assertThat(sha256(db)).isEqualTo(before);
        assertThat(sha256(other)).isEqualTo(otherBefore);
        try (var s = Files.list(dir)) {
            assertThat(s.map(Path::toString).sorted().toList())
                    .as("nothing written beside the databases")
                    .isEqualTo(filesBefore);
        }
        assertThat(runner.run("SELECT count(*), sum(price) FROM item").rows()).containsExactly(List.of(300L, 67725.0));
    }

    @Test
    void aMissingDatabaseIsOneClearError() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> new SqlRunner(dir.resolve("nope.sqlite"), SqlRunner.Limits.DEFAULT))
                .hasMessageContaining("no SQLite database at")
                .hasMessageContaining("nope.sqlite");
    }
}

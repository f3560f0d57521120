package org.pettingllms.envs.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The execution match: multisets unless the gold query orders, 1 = 1.0, columns counted, failures as reasons. */
class ExecutionMatchTest {
    @TempDir
    static Path dir;

    static SqlRunner runner;

    @BeforeAll
    static void create() throws Exception {
        Path db = dir.resolve("people.sqlite");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE person(id INTEGER, name TEXT, city TEXT, age INTEGER)");
            s.execute("INSERT INTO person VALUES (1,'Ann','Oslo',30),(2,'Bo','Oslo',41),(3,'Cy','Rome',30),"
                    + "(4,'Di','Rome',25)");
        }
        runner = new SqlRunner(db, SqlRunner.Limits.DEFAULT);
    }

    static boolean match(String predicted, String gold) {
        return ExecutionMatch.check(runner, predicted, gold).correct();
    }

    @Test
    void rowsCompareAsAMultisetUnlessTheGoldQueryOrders() {
        assertThat(match("SELECT name FROM person ORDER BY name DESC", "SELECT name FROM person"))
                .isTrue();
        assertThat(match("SELECT name FROM person ORDER BY name DESC", "SELECT name FROM person ORDER BY name"))
                .isFalse();
        assertThat(match("SELECT name FROM person ORDER BY id", "SELECT name FROM person ORDER BY name"))
                .isTrue();
        // an ORDER BY inside a subquery does not order the result
        assertThat(match(
                        "SELECT name FROM person ORDER BY name DESC",
                        "SELECT name FROM (SELECT name FROM person ORDER BY name)"))
                .isTrue();
        assertThat(SqlStatement.ordersResult("SELECT 'ORDER BY' FROM t -- ORDER BY x"))
                .isFalse();
        assertThat(SqlStatement.ordersResult("select a from t order\n by a")).isTrue();
    }

    @Test
    void multiplicityColumnsAndNumbersCount() {
        // the same set, other multiplicity
        assertThat(match("SELECT city FROM person", "SELECT DISTINCT city FROM person"))
                .isFalse();
        assertThat(match("SELECT city, name FROM person", "SELECT city FROM person"))
                .isFalse();
        assertThat(match("SELECT age * 1.0 FROM person", "SELECT age FROM person"))
                .isTrue();
        assertThat(match("SELECT age + 0.5 FROM person", "SELECT age FROM person"))
                .isFalse();
        // column names do not matter
        assertThat(match("SELECT name AS who FROM person WHERE age = 30", "SELECT name FROM person WHERE age = 30"))
                .isTrue();
        assertThat(match("SELECT name FROM person WHERE 0", "SELECT name, city FROM person WHERE 0"))
                .isTrue();
    }

    @Test
    void failuresAreWrongWithTheirReason() {
        ExecutionMatch.Verdict v = ExecutionMatch.check(runner, "SELECT nme FROM person", "SELECT name FROM person");
        assertThat(v.correct()).isFalse();
        assertThat(v.reason()).contains("failed").contains("no such column");
        assertThat(ExecutionMatch.check(runner, "DELETE FROM person", "SELECT name FROM person")
                        .reason())
                .contains("refused");
        assertThat(ExecutionMatch.check(runner, "SELECT name FROM person WHERE age > 26", "SELECT name FROM person")
                        .reason())
                .contains("3 rows where the gold query has 4");
        assertThatThrownBy(() -> ExecutionMatch.check(runner, "SELECT 1", "SELECT nope FROM person"))
                .hasMessageContaining("the gold query does not run");
    }
}

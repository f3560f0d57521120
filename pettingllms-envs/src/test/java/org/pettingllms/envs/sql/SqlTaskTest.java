package org.pettingllms.envs.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.Items;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * {@code sql-v1} on generated shops: the oracle team scores all, the wrong one nothing; the question's wording is not
 * how the data stores it, so the writer alone on the wording fails where a writer that saw the explorer's rows
 * succeeds; rewards as documented; the task contract for the team and the single writer.
 */
class SqlTaskTest {
    @TempDir
    static Path dir;

    static SqlTask task(List<String> roles) {
        return new SqlTask(
                roles,
                2,
                new Items.Generated<>(ShopWorlds.NAME, seed -> ShopWorlds.item(seed, dir)),
                SqlRunner.Limits.DEFAULT);
    }

    static List<SqlItem> items(SqlTask t, List<Problem> problems) {
        return problems.stream().map(p -> t.initialState(p).item()).toList();
    }

    static double evaluate(SqlTask t, TextPolicy policy, List<Problem> problems, PromptStyle style) {
        return GreedyEvaluation.successRate(t, policy, problems, style, 512);
    }

    @Test
    void theOracleTeamSolvesEveryProblemAndTheWrongOneNone() {
        SqlTask t = task(List.of(SqlTask.EXPLORER, SqlTask.WRITER));
        List<Problem> ps = t.problems(1).problems(Split.TEST, 0, 40);
        List<SqlItem> items = items(t, ps);
        for (PromptStyle style : List.of(PromptStyle.COMPACT, PromptStyle.CHAT)) {
            assertThat(evaluate(t, new SqlOracle(items, false), ps, style))
                    .as(style.name())
                    .isEqualTo(1.0);
            assertThat(evaluate(t, new SqlOracle(items, true), ps, style))
                    .as(style.name())
                    .isEqualTo(0.0);
        }
    }

    @Test
    void theWordingIsNotTheDataSoOnlyExplorationFindsTheValues() {
        SqlTask t = task(List.of(SqlTask.EXPLORER, SqlTask.WRITER));
        for (Problem p : t.problems(1).problems(Split.TRAIN, 0, 60)) {
            SqlState s = t.initialState(p);
            SqlItem item = s.item();
            assertThat(item.keys()).isNotEmpty();
            for (String key : item.keys()) { // as a whole word: the code 'S' is no clue in "San Francisco"
                java.util.regex.Pattern word = java.util.regex.Pattern.compile(
                        "(?<![A-Za-z0-9])" + java.util.regex.Pattern.quote(key) + "(?![A-Za-z0-9])");
                assertThat(word.matcher(item.question()).find())
                        .as(item.id() + ": " + key)
                        .isFalse();
                assertThat(word.matcher(item.schema()).find())
                        .as(item.id() + ": " + key)
                        .isFalse();
            }
            // the wording's query runs and answers wrongly
            SqlRunner runner = new SqlRunner(Path.of(item.database()), SqlRunner.Limits.DEFAULT);
            ExecutionMatch.Verdict naive = ExecutionMatch.check(runner, item.naive(), item.gold());
            assertThat(naive.predicted().ok()).isTrue();
            assertThat(naive.correct()).as(item.id() + " " + item.naive()).isFalse();
            // the explorer's look at the names and codes shows every needed value, and earns its reward
            Transition<SqlState> explored = t.step(s, SqlTask.EXPLORER, Completion.ofText(SqlOracle.exploration(item)));
            assertThat(explored.reward().local()).isEqualTo(1.0);
            assertThat(explored.next().explorer().seen()).contains(item.keys());
            Transition<SqlState> written = t.step(explored.next(), SqlTask.WRITER, Completion.ofText(item.gold()));
            assertThat(written.done()).isTrue();
            assertThat(written.success()).isTrue();
            assertThat(written.reward().team()).isEqualTo(1.0);
        }
    }

    @Test
    void eachCityLookupFindsItsOwnSpellingsAndNoOtherCitys() throws Exception {
        List<List<String>> cities = ShopWorlds.spellingsByCity();
        try (var conn = java.sql.DriverManager.getConnection("jdbc:sqlite::memory:");
                var st = conn.createStatement()) {
            st.execute("CREATE TABLE city(id INTEGER PRIMARY KEY, name TEXT)");
            for (List<String> spellings : cities) {
                for (String name : spellings) {
                    st.execute("INSERT INTO city(name) VALUES ('" + name.replace("'", "''") + "')");
                }
            }
            for (List<String> spellings : cities) {
                for (String name : spellings) {
                    String look = ShopWorlds.lookup(List.of(name));
                    List<String> found = new java.util.ArrayList<>();
                    try (var rs = st.executeQuery(look)) {
                        while (rs.next()) {
                            found.add(rs.getString(1));
                        }
                    }
                    assertThat(found).as(look).containsExactlyInAnyOrderElementsOf(spellings);
                }
            }
        }
        assertThat(ShopWorlds.lookup(List.of("GLD", "St Louis")))
                .isEqualTo(
                        "SELECT name FROM city WHERE name LIKE '%louis' UNION ALL SELECT DISTINCT tier FROM customer");
        assertThat(ShopWorlds.lookup(List.of("AU"))).isEqualTo("SELECT DISTINCT tier FROM customer");
    }

    @Test
    void demonstrationsCopyStoredValuesOnlyFromRowsTheWriterSaw() {
        SqlTask team = task(List.of(SqlTask.EXPLORER, SqlTask.WRITER));
        SqlTask alone = task(List.of(SqlTask.WRITER));
        List<Problem> ps = team.problems(1).problems(Split.TRAIN, 0, 40);
        var rng = new java.util.SplittableRandom(7);
        int copied = 0;
        int writers = 0;
        for (Problem p : ps) {
            SqlItem item = team.initialState(p).item();
            // noise 0: the explorer shows every needed value and the writer copies them into the gold query
            var right = team.demonstrations(p, PromptStyle.COMPACT, new Demonstrations.Settings(0, 0), rng);
            assertThat(right).extracting(Demonstrations.Demo::role).containsExactly(SqlTask.EXPLORER, SqlTask.WRITER);
            assertThat(right.get(1).prompt().text())
                    .contains("explored: " + right.get(0).answer());
            for (String key : item.keys()) {
                assertThat(right.get(1).prompt().text()).as(item.id()).contains(key);
            }
            assertThat(right.get(1).answer()).isEqualTo(item.gold());
            if (right.get(0).answer().contains("FROM city")) { // the look finds the one city the question means
                assertThat(right.get(1).prompt().text()).doesNotContain("(no rows)");
                long cityRows = right.get(1)
                        .prompt()
                        .text()
                        .lines()
                        .filter(ShopWorlds.spellingsByCity().stream()
                                .flatMap(List::stream)
                                .toList()::contains)
                        .count();
                assertThat(cityRows).as(item.id()).isEqualTo(1);
            }
            // noise 1: a useless look, so the writer writes on the wording
            var wrong = team.demonstrations(p, PromptStyle.COMPACT, new Demonstrations.Settings(1, 0), rng);
            assertThat(SqlDemonstrations.USELESS).contains(wrong.get(0).answer());
            assertThat(wrong.get(1).answer()).isEqualTo(item.naive());
            // the writer alone never saw a row: it writes on the wording whatever the noise
            var single = alone.demonstrations(p, PromptStyle.CHAT, new Demonstrations.Settings(0, 0), rng);
            assertThat(single).hasSize(1);
            assertThat(single.get(0).answer()).isEqualTo("```sql\n" + item.naive() + "\n```");
            // noise 0.5: a writer copies only where its rows show the values
            for (int i = 0; i < 5; i++) {
                var mixed = team.demonstrations(p, PromptStyle.COMPACT, new Demonstrations.Settings(0.5, 0), rng);
                boolean shown = !SqlDemonstrations.USELESS.contains(mixed.get(0).answer());
                writers++;
                if (mixed.get(1).answer().equals(item.gold())) {
                    copied++;
                    assertThat(shown).as(item.id()).isTrue();
                }
            }
        }
        assertThat((double) copied / writers).isBetween(0.15, 0.35); // about (1 - 0.5) x (1 - 0.5)
    }

    @Test
    void rewardsAndEndings() {
        SqlTask t = task(List.of(SqlTask.EXPLORER, SqlTask.WRITER));
        SqlState s = t.initialState(t.problems(1).problems(Split.TRAIN, 0, 1).get(0));
        Transition<SqlState> refused = t.step(s, SqlTask.EXPLORER, Completion.ofText("DROP TABLE city"));
        assertThat(refused.reward().local()).isEqualTo(-1.0);
        assertThat(refused.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        Transition<SqlState> blind = t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT count(*) FROM orders"));
        assertThat(blind.reward().local()).isEqualTo(0.0);
        Transition<SqlState> none = t.step(s, SqlTask.WRITER, Completion.ofText("```sql\n```"));
        assertThat(none.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        assertThat(none.reward().local()).isEqualTo(-1.0);
        Transition<SqlState> failing = t.step(s, SqlTask.WRITER, Completion.ofText("SELECT nope FROM city"));
        assertThat(failing.done())
                .as("a query that fails gives no answer: the team may try again")
                .isFalse();
        assertThat(failing.reward().local()).isEqualTo(-1.0);
        Transition<SqlState> wrong = t.step(s, SqlTask.WRITER, Completion.ofText("```sql\nSELECT 0\n```"));
        assertThat(wrong.done()).isTrue();
        assertThat(wrong.success()).isFalse();
        assertThat(wrong.reward().local()).isEqualTo(0.0);
        assertThat(SqlTask.query("Here:\n```sql\nSELECT 1\n```\nand\n```sql\nSELECT 2\n```"))
                .isEqualTo("SELECT 2");
    }

    @Test
    void theExplorerIsPaidForPrecisionAsWellAsRecall() {
        SqlTask t = task(List.of(SqlTask.EXPLORER, SqlTask.WRITER));
        int cities = 0;
        int tiers = 0;
        for (Problem p : t.problems(1).problems(Split.TRAIN, 0, 40)) {
            SqlState s = t.initialState(p);
            SqlItem item = s.item();
            // the warm-up's look-up shows what the question needs and nothing else
            assertThat(t.step(s, SqlTask.EXPLORER, Completion.ofText(ShopWorlds.lookup(item.keys())))
                            .reward()
                            .local())
                    .as(item.id())
                    .isEqualTo(1.0);
            boolean city =
                    ShopWorlds.spellingsByCity().stream().flatMap(List::stream).anyMatch(item.keys()::contains);
            if (city && item.keys().size() == 1) { // a dump of the six city names: P = 1/6, R = 1, F1 = 2/7
                cities++;
                assertThat(t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT name FROM city"))
                                .reward()
                                .local())
                        .as(item.id())
                        .isCloseTo(2.0 / 7, org.assertj.core.data.Offset.offset(1e-12));
            }
            if (!city) { // a tier question: every code shown is relevant, customers' names and ids are not
                tiers++;
                assertThat(t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT DISTINCT tier FROM customer"))
                                .reward()
                                .local())
                        .isEqualTo(1.0);
                double dump = t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT * FROM customer"))
                        .reward()
                        .local();
                assertThat(dump).as(item.id()).isGreaterThan(0).isLessThan(0.3);
            }
            // everything in one result: the needed values are there, among many others
            double all = t.step(
                            s,
                            SqlTask.EXPLORER,
                            Completion.ofText("SELECT name FROM city UNION ALL SELECT name FROM customer"
                                    + " UNION ALL SELECT tier FROM customer"))
                    .reward()
                    .local();
            assertThat(all).as(item.id()).isLessThan(0.5);
        }
        assertThat(cities).isPositive();
        assertThat(tiers).isPositive();
        // hand-computed: 2 needed of 4 shown values, one of them found -> P = 1/4, R = 1/2, F1 = 1/3
        SqlItem two = new SqlItem("x", "", "", "q", "SELECT 1", List.of("NYC", "GLD"), "");
        assertThat(SqlTask.explorerReward(two, "NYC | Ada\n7 | Ben\n(more rows)"))
                .isCloseTo(1.0 / 3, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(SqlTask.explorerReward(two, "NYC\nGLD\nSLV\nBRZ")).isEqualTo(1.0); // a code set decodes GLD
    }

    @Test
    void onADatasetRowANonEmptyResultAloneEarnsNothing() throws Exception {
        SqlItem shop = ShopWorlds.item(5, dir);
        SqlItem row =
                new SqlItem("spider-like", shop.database(), shop.schema(), shop.question(), shop.gold(), List.of(), "");
        SqlTask t = new SqlTask(
                List.of(SqlTask.EXPLORER, SqlTask.WRITER),
                2,
                new Items.Listed<>(List.of(), List.of(row), SqlItem.class),
                SqlRunner.Limits.DEFAULT);
        SqlState s = t.initialState(t.problems(1).problems(Split.TEST, 0, 1).get(0));
        Transition<SqlState> any = t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT * FROM customer"));
        assertThat(any.outcome()).isEqualTo(StepOutcome.OK);
        assertThat(any.reward().local()).isEqualTo(0.0);
        assertThat(t.step(s, SqlTask.EXPLORER, Completion.ofText("SELECT nope"))
                        .reward()
                        .local())
                .isEqualTo(-1.0);
    }

    @Test
    void theWriterAloneHasTheTeamsCallsAndSeesTheRowsOfEachQuery() {
        SqlTask alone = task(List.of(SqlTask.WRITER));
        assertThat(alone.maxTurns())
                .as("two calls for each of the team's two turns")
                .isEqualTo(4);
        SqlState s =
                alone.initialState(alone.problems(1).problems(Split.TRAIN, 0, 1).get(0));
        SqlItem item = s.item();
        // a query that fails does not end the episode: its error is shown
        Transition<SqlState> failing = alone.step(s, SqlTask.WRITER, Completion.ofText("SELECT nope FROM city"));
        assertThat(failing.done()).isFalse();
        assertThat(failing.reward().local()).isEqualTo(-1.0);
        assertThat(alone.prompt(failing.next(), SqlTask.WRITER, 1, PromptStyle.COMPACT)
                        .text())
                .contains("explored: SELECT nope FROM city\n(error: ");
        // a look-up runs: its rows are shown next, as the explorer's are to the team's writer
        String look = ShopWorlds.lookup(item.keys());
        Transition<SqlState> looked = alone.step(failing.next(), SqlTask.WRITER, Completion.ofText(look));
        assertThat(looked.done()).isFalse();
        assertThat(looked.success()).isFalse();
        assertThat(looked.reward().local()).isEqualTo(0.0);
        String next = alone.prompt(looked.next(), SqlTask.WRITER, 2, PromptStyle.COMPACT)
                .text();
        assertThat(next).contains("explored: " + look);
        item.keys().forEach(key -> assertThat(next).contains(key));
        assertThat(alone.prompt(looked.next(), SqlTask.WRITER, 2, PromptStyle.CHAT)
                        .text())
                .contains("You ran:")
                .contains("write the same query again when it is your answer");
        assertThat(next).endsWith("(the same query again is the answer)\n>");
        // the gold query makes the answer right and is paid 1; written again, it is the answer and the episode ends,
        // paid nothing more: rewriting a right answer earns nothing, making it wrong costs what it had
        Transition<SqlState> right = alone.step(looked.next(), SqlTask.WRITER, Completion.ofText(item.gold()));
        assertThat(right.done()).isFalse();
        assertThat(right.success()).isTrue();
        assertThat(right.reward().team()).isEqualTo(1.0);
        Transition<SqlState> again = alone.step(right.next(), SqlTask.WRITER, Completion.ofText(item.gold()));
        assertThat(again.done()).isTrue();
        assertThat(again.success()).isTrue();
        assertThat(again.reward().team()).isEqualTo(0.0);
        Transition<SqlState> rewritten = alone.step(
                right.next(), SqlTask.WRITER, Completion.ofText(item.gold().replace(" FROM ", "  FROM ")));
        assertThat(rewritten.done()).as("a different text is no answer yet").isFalse();
        assertThat(rewritten.reward().team()).isEqualTo(0.0);
        Transition<SqlState> spoilt = alone.step(right.next(), SqlTask.WRITER, Completion.ofText(item.naive()));
        assertThat(spoilt.success()).isFalse();
        assertThat(spoilt.reward().team()).isEqualTo(-1.0);
        assertThat(spoilt.reward().local()).isEqualTo(-1.0);
        // the answer is the latest query that ran: a failing one after it changes nothing
        Transition<SqlState> broken = alone.step(right.next(), SqlTask.WRITER, Completion.ofText("SELECT nope"));
        assertThat(broken.success()).isTrue();
        assertThat(broken.next().writer().query()).isEqualTo(item.gold());
        // the question's wording runs and is wrong
        Transition<SqlState> naive = alone.step(s, SqlTask.WRITER, Completion.ofText(item.naive()));
        assertThat(naive.done()).isFalse();
        assertThat(naive.success()).isFalse();
    }

    @Test
    void aWriterAloneThatLooksThenCopiesSolvesWhatTheWordingCannot() {
        SqlTask alone = task(List.of(SqlTask.WRITER));
        List<Problem> ps = alone.problems(1).problems(Split.TEST, 0, 20);
        List<SqlItem> items = items(alone, ps);
        TextPolicy wording =
                (policy, prompt, rng) -> org.pettingllms.envs.data.ItemLookup.in(prompt.text(), items, SqlItem::id)
                        .naive();
        TextPolicy looks = (policy, prompt, rng) -> {
            SqlItem item = org.pettingllms.envs.data.ItemLookup.in(prompt.text(), items, SqlItem::id);
            return prompt.text().contains("explored: ") ? item.gold() : ShopWorlds.lookup(item.keys());
        };
        assertThat(evaluate(alone, wording, ps, PromptStyle.COMPACT)).isEqualTo(0.0);
        assertThat(evaluate(alone, looks, ps, PromptStyle.COMPACT)).isEqualTo(1.0);
    }

    @Test
    void problemsAreSplitByTheirQuestion() {
        SqlTask t = task(List.of(SqlTask.WRITER));
        java.util.Map<String, Split> seen = new java.util.HashMap<>();
        for (Split split : List.of(Split.TRAIN, Split.VALIDATION, Split.TEST)) {
            for (Problem p : t.problems(4).problems(split, 0, 40)) {
                String question = t.initialState(p).item().question();
                assertThat(org.pettingllms.envs.data.ContentSplit.splitOf(question))
                        .as(question)
                        .isEqualTo(split);
                Split before = seen.put(question, split);
                assertThat(before == null || before == split).as(question).isTrue();
            }
        }
        assertThat(seen.values()).contains(Split.TRAIN, Split.VALIDATION, Split.TEST);
    }

    @Test
    void aWorldIsTheSameFileForTheSameSeed(@TempDir Path other) throws Exception {
        SqlItem a = ShopWorlds.item(42, dir);
        SqlItem b = ShopWorlds.item(42, other);
        assertThat(a.question()).isEqualTo(b.question());
        assertThat(a.gold()).isEqualTo(b.gold());
        assertThat(ShopWorlds.distinct(Path.of(a.database()), "customer", "name"))
                .isEqualTo(ShopWorlds.distinct(Path.of(b.database()), "customer", "name"));
        assertThat(ShopWorlds.item(43, dir).database()).isNotEqualTo(a.database());
    }

    abstract class ShopContract extends TaskContract<SqlState> {
        abstract List<String> roles();

        @Override
        protected SqlTask task() {
            return SqlTaskTest.task(roles());
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(3).problems(Split.TEST, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            List<SqlItem> items = items(task(), problems());
            return halfRight(new SqlOracle(items, false), new SqlOracle(items, true));
        }
    }

    @Nested
    class TeamContract extends ShopContract {
        @Override
        List<String> roles() {
            return List.of(SqlTask.EXPLORER, SqlTask.WRITER);
        }
    }

    @Nested
    class SingleAgentContract extends ShopContract {
        @Override
        List<String> roles() {
            return List.of(SqlTask.WRITER);
        }
    }
}

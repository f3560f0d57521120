package org.pettingllms.envs.sql;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.Items;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * {@code sql-v1} (ENVIRONMENTS.md): an {@code explorer} runs one read-only query on the database and sees its rows; a
 * {@code writer} writes the query that answers the question from the schema, the question and what the explorer saw.
 * Every query runs on the database file through {@link SqlRunner} (read-only, one SELECT, time and size limits).
 *
 * <p>Rewards. Writer: 1 (local and team) when its query matches the gold one by execution ({@link ExecutionMatch}),
 * 0 when it runs and answers wrongly, -1 (local) when it is missing, refused or fails (the format penalty). Explorer:
 * -1 when its query is missing, refused or fails; otherwise, on a generated problem (which knows the values the
 * question needs, {@link SqlItem#keys}), the F1 of what its rows show: recall is the share of the needed values
 * shown, precision the share of the distinct values shown that the question needs or that decode one
 * ({@link ShopWorlds#relevant}: a tier's code set), so a dump of every value earns little; on a dataset row (no
 * known values) 0, since a non-empty result alone says nothing. The episode ends when the writer's query runs (its
 * answer is given) or after T turns; success is the writer's latest query being right.
 *
 * <p>With roles {@code [writer]}, the single agent, given the team's tools, model calls and feedback: every query it
 * writes runs and its next prompt shows the query and the rows as the team's writer is shown the explorer's
 * ({@code explored:}); it has {@link #CALLS_PER_TURN} calls for each of the team's T turns, may revise each time, and
 * its episode ends when it writes its previous query again or the calls run out. Its answer (the success) is its
 * latest query that ran; a query that runs is paid the change in the answer's worth (1 when it makes the answer
 * right, -1 when it makes a right answer wrong, else 0), so that an episode's rewards sum to its answer's, 1 or 0,
 * as the team's writer's do (paid each right query, a writer alone would earn more by rewriting a right answer than
 * by giving it); a query that is missing or fails is -1, as the writer's.
 */
public final class SqlTask extends DatasetTask<SqlState, SqlItem> implements Demonstrations {
    public static final String EXPLORER = "explorer";
    public static final String WRITER = "writer";
    /** Model calls the team makes per turn (explorer, writer): what the writer alone gets per turn. */
    public static final int CALLS_PER_TURN = 2;

    private final SqlRunner.Limits limits;
    private final GoldResults gold;

    public SqlTask(List<String> roles, int maxTurns, Items<SqlItem> items, SqlRunner.Limits limits) {
        this(roles, maxTurns, items, limits, new GoldResults(limits));
    }

    /** A task whose gold results {@code gold} holds (dataset rows checked there at load). */
    SqlTask(List<String> roles, int maxTurns, Items<SqlItem> items, SqlRunner.Limits limits, GoldResults gold) {
        super(
                roles,
                List.of(EXPLORER, WRITER),
                WRITER,
                teamCalls(roles, maxTurns, CALLS_PER_TURN),
                items,
                SqlState::start);
        this.limits = limits;
        this.gold = gold;
    }

    /** The gold results, run once each. */
    GoldResults gold() {
        return gold;
    }

    @Override
    public String id() {
        return "sql-v1";
    }

    @Override
    protected Prompt compactPrompt(SqlState state, String role, int turn) {
        return SqlPrompts.compact(id(), state, role, alone());
    }

    @Override
    protected Prompt chatPrompt(SqlState state, String role, int turn) {
        return SqlPrompts.chat(state, role, alone());
    }

    @Override
    public Transition<SqlState> step(SqlState state, String role, Completion completion) {
        String query = query(completion.text());
        return checkRole(role).equals(EXPLORER) ? explore(state, query) : write(state, query);
    }

    /** The query in an answer: its last fenced block, else the whole answer. */
    static String query(String text) {
        return CodeBlocks.lastFenced(text)
                .orElse(text.contains("```") ? "" : text)
                .strip();
    }

    private SqlRunner runner(SqlState s) {
        return new SqlRunner(Path.of(s.item().database()), limits);
    }

    private Transition<SqlState> explore(SqlState s, String query) {
        if (query.isEmpty()) {
            SqlState next = new SqlState(s.item(), new SqlState.Exploration("", "(no query)"), s.writer(), s.success());
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.UNPARSEABLE, "no query");
        }
        SqlRunner.Result r = runner(s).run(query);
        String seen = SqlPrompts.seen(r);
        SqlState next = new SqlState(s.item(), new SqlState.Exploration(query, seen), s.writer(), s.success());
        if (r.outcome() != SqlRunner.Outcome.OK && r.outcome() != SqlRunner.Outcome.TRUNCATED) {
            return new Transition<>(
                    next,
                    new RewardParts(-1, 0, 0),
                    false,
                    s.success(),
                    StepOutcome.INVALID_ACTION,
                    r.outcome().name().toLowerCase(Locale.ROOT) + ": " + r.message());
        }
        double reward = explorerReward(s.item(), seen);
        return new Transition<>(
                next,
                new RewardParts(reward, 0, 0),
                false,
                s.success(),
                StepOutcome.OK,
                r.rows().size() + " rows"
                        + (s.item().keys().isEmpty()
                                ? ""
                                : ", showing " + Math.round(recall(s.item(), seen) * 100)
                                        + "% of the needed values, F1 " + Math.round(reward * 100) + "%"));
    }

    /** The distinct values the rows the writer will see show (the row lines of {@link SqlPrompts#seen}). */
    static java.util.Set<String> cells(String seen) {
        java.util.Set<String> cells = new java.util.LinkedHashSet<>();
        for (String line : seen.lines().toList()) {
            if (line.equals(SqlPrompts.MORE_ROWS) || line.equals(SqlPrompts.NO_ROWS)) {
                continue; // a marker, not a row
            }
            for (String cell : line.split(" \\| ", -1)) {
                cells.add(cell.strip());
            }
        }
        return cells;
    }

    /** The share of the item's needed values that the rows the writer will see show (whole values, case kept). */
    static double recall(SqlItem item, String seen) {
        if (item.keys().isEmpty()) {
            return 0;
        }
        java.util.Set<String> cells = cells(seen);
        return (double) item.keys().stream().filter(cells::contains).count()
                / item.keys().size();
    }

    /**
     * The explorer's local reward for rows that ran: F1 = 2PR / (P + R) of recall R ({@link #recall}) and precision P,
     * the share of the distinct values shown that are {@link ShopWorlds#relevant} to the question; 0 on a dataset
     * row, whose needed values are not known.
     */
    static double explorerReward(SqlItem item, String seen) {
        double r = recall(item, seen);
        if (r == 0) {
            return 0;
        }
        java.util.Set<String> cells = cells(seen);
        java.util.Set<String> relevant = ShopWorlds.relevant(item.keys());
        double p = (double) cells.stream().filter(relevant::contains).count() / cells.size();
        return 2 * p * r / (p + r);
    }

    private Transition<SqlState> write(SqlState s, String query) {
        if (query.isEmpty()) {
            SqlState next = alone()
                    ? new SqlState(s.item(), new SqlState.Exploration("", "(no query)"), s.writer(), s.success())
                    : new SqlState(s.item(), s.explorer(), new SqlState.Written("", false, "no query"), s.success());
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.UNPARSEABLE, "no query");
        }
        ExecutionMatch.Verdict v = ExecutionMatch.check(
                runner(s), query, gold.of(s.item()), s.item().gold());
        if (!v.predicted().ok()) { // refused, failed, timed out or too long: no answer given, the team may try again
            SqlState next = alone() // alone: the error is its feedback, and its answer the latest query that ran
                    ? new SqlState(
                            s.item(),
                            new SqlState.Exploration(query, SqlPrompts.seen(v.predicted())),
                            s.writer(),
                            s.success())
                    : new SqlState(s.item(), s.explorer(), new SqlState.Written(query, false, v.reason()), false);
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, next.success(), StepOutcome.INVALID_ACTION, v.reason());
        }
        SqlState.Written written = new SqlState.Written(query, v.correct(), v.reason());
        // alone, the query's rows are shown next, as the explorer's are to the team's writer; writing the previous
        // answer again is the single agent's way to give it
        boolean done = !alone() || s.writer() != null && s.writer().query().equals(query);
        SqlState next = alone()
                ? new SqlState(
                        s.item(), new SqlState.Exploration(query, SqlPrompts.seen(v.predicted())), written, v.correct())
                : new SqlState(s.item(), s.explorer(), written, v.correct());
        double r = v.correct() ? 1 : 0;
        if (alone()) { // paid the change in its answer's worth, so an episode's rewards sum to its answer's
            r -= s.success() ? 1 : 0;
        }
        return new Transition<>(
                next,
                new RewardParts(r, r, 0),
                done,
                v.correct(),
                v.correct() && done ? StepOutcome.SOLVED : StepOutcome.OK,
                (v.correct() ? "right: " : "wrong: ") + v.reason());
    }

    /**
     * Warm-up demonstrations: for generated shops {@link SqlDemonstrations} (a writer that copies stored values only
     * from rows it was shown), for dataset rows the oracle's answers at skill {@code 1 - noise}.
     */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (row(problem).keys().isEmpty()) {
            return oracleDemonstrations(problem, style, settings, rng);
        }
        return SqlDemonstrations.of(this, problem, style, settings, rng);
    }

    @Override
    protected TextPolicy oracle(List<SqlItem> items, boolean wrong) {
        return new SqlOracle(items, wrong);
    }
}

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
 * -1 when its query is missing, refused or fails; otherwise the share of the values the question needs that its rows
 * show (a generated problem knows them: {@link SqlItem#keys}), or, without known values, 1 for a non-empty result.
 * The episode ends when the writer's query runs (its answer is given) or after T turns; success is the writer's
 * latest query being right. With roles {@code [writer]} it is the single-agent variant.
 */
public final class SqlTask extends DatasetTask<SqlState, SqlItem> implements Demonstrations {
    public static final String EXPLORER = "explorer";
    public static final String WRITER = "writer";

    private final SqlRunner.Limits limits;
    private final GoldResults gold;

    public SqlTask(List<String> roles, int maxTurns, Items<SqlItem> items, SqlRunner.Limits limits) {
        this(roles, maxTurns, items, limits, new GoldResults(limits));
    }

    /** A task whose gold results {@code gold} holds (dataset rows checked there at load). */
    SqlTask(List<String> roles, int maxTurns, Items<SqlItem> items, SqlRunner.Limits limits, GoldResults gold) {
        super(roles, List.of(List.of(EXPLORER, WRITER), List.of(WRITER)), maxTurns, items);
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
    public String mainRole() {
        return WRITER;
    }

    @Override
    public SqlState initialState(Problem problem) {
        return SqlState.start(row(problem));
    }

    @Override
    public Prompt prompt(SqlState state, String role, int turn, PromptStyle style) {
        checkRole(role);
        return style == PromptStyle.COMPACT ? SqlPrompts.compact(id(), state, role) : SqlPrompts.chat(state, role);
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
        double found = found(s.item(), seen, !r.rows().isEmpty());
        return new Transition<>(
                next,
                new RewardParts(found, 0, 0),
                false,
                s.success(),
                StepOutcome.OK,
                r.rows().size() + " rows"
                        + (s.item().keys().isEmpty()
                                ? ""
                                : ", showing " + Math.round(found * 100) + "% of the needed values"));
    }

    /** The share of the item's needed values that the rows the writer will see show (whole values, case kept). */
    static double found(SqlItem item, String seen, boolean anyRows) {
        if (item.keys().isEmpty()) {
            return anyRows ? 1 : 0;
        }
        List<String> cells = seen.lines()
                .flatMap(line -> java.util.Arrays.stream(line.split(" \\| ")))
                .map(String::strip)
                .toList();
        long shown = item.keys().stream().filter(cells::contains).count();
        return (double) shown / item.keys().size();
    }

    private Transition<SqlState> write(SqlState s, String query) {
        if (query.isEmpty()) {
            SqlState next =
                    new SqlState(s.item(), s.explorer(), new SqlState.Written("", false, "no query"), s.success());
            return new Transition<>(
                    next, new RewardParts(-1, 0, 0), false, s.success(), StepOutcome.UNPARSEABLE, "no query");
        }
        ExecutionMatch.Verdict v = ExecutionMatch.check(
                runner(s), query, gold.of(s.item()), s.item().gold());
        SqlState next =
                new SqlState(s.item(), s.explorer(), new SqlState.Written(query, v.correct(), v.reason()), v.correct());
        if (!v.predicted().ok()) { // refused, failed, timed out or too long: no answer given, the team may try again
            return new Transition<>(
                    next,
                    new RewardParts(-1, 0, 0),
                    roles().size() == 1,
                    false,
                    StepOutcome.INVALID_ACTION,
                    v.reason());
        }
        double r = v.correct() ? 1 : 0;
        return new Transition<>(
                next,
                new RewardParts(r, r, 0),
                true,
                v.correct(),
                v.correct() ? StepOutcome.SOLVED : StepOutcome.OK,
                (v.correct() ? "right: " : "wrong: ") + v.reason());
    }

    /**
     * Warm-up demonstrations: for generated shops {@link SqlDemonstrations} (a writer that copies stored values only
     * from rows it was shown), for dataset rows the oracle's answers at skill {@code 1 - noise}.
     */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        if (row(problem).keys().isEmpty()) {
            return Demonstrations.fromScripted(
                    this, scripted(1 - settings.noise(), List.of(problem)), problem, style, settings.turns(), rng);
        }
        return SqlDemonstrations.of(this, problem, style, settings, rng);
    }

    @Override
    protected TextPolicy oracle(List<SqlItem> items, boolean wrong) {
        return new SqlOracle(items, wrong);
    }
}

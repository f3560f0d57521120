package org.pettingllms.envs.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations.Demo;
import org.pettingllms.core.task.Demonstrations.Settings;

/**
 * Warm-up demonstrations of generated shops, deliberately imperfect. The explorer looks at what the question needs
 * (the city, by a LIKE pattern that finds its stored name; the tier codes; both in one result) with probability
 * {@code 1 - noise}, else at something of no use (an order count, a few customers). Its query runs on the database,
 * and the writer sees the rows as it would in an episode. Where those rows show every stored value the question needs, the writer copies them
 * into the gold query with probability {@code 1 - noise}, else (and always where the rows do not show them) writes
 * the query on the question's wording ({@link SqlItem#naive}), which runs and answers wrongly. So the warm-up shows the
 * format and that rows can be copied, never a stored spelling the writer could not have seen: finding that the rows
 * hold the answer's values is left to reinforcement learning. The writer alone (the single agent) is shown no rows
 * before its first query and writes on the wording; only its first call is demonstrated. ({@code adopt} and
 * {@code turns} have no meaning here: the gold query and the wording's both run, so a team's episode ends in its first
 * turn; only the explorer's query is run here, for the writer's rows.)
 */
final class SqlDemonstrations {
    /** Explorations of no use to any generated question (no row holds a city name or a tier code). */
    static final List<String> USELESS = List.of(
            "SELECT count(*) FROM orders",
            "SELECT name FROM customer LIMIT 5",
            "SELECT max(amount) FROM orders",
            "SELECT name FROM customer ORDER BY id DESC LIMIT 4");

    private SqlDemonstrations() {}

    static List<Demo> of(SqlTask task, Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        SqlState state = task.initialState(problem);
        SqlItem item = state.item();
        List<Demo> out = new ArrayList<>();
        for (String role : task.roles()) {
            var prompt = task.prompt(state, role, 0, style);
            boolean right = rng.nextDouble() >= settings.noise();
            String query;
            if (role.equals(SqlTask.EXPLORER)) {
                query = right ? exploration(item) : USELESS.get(rng.nextInt(USELESS.size()));
            } else {
                boolean shown = state.explorer() != null
                        && SqlTask.recall(item, state.explorer().seen()) == 1.0; // the item has keys
                query = right && shown ? item.gold() : item.naive();
            }
            out.add(new Demo(role, prompt, style == PromptStyle.COMPACT ? query : "```sql\n" + query + "\n```"));
            if (role.equals(
                    SqlTask.EXPLORER)) { // its rows go into the writer's prompt; the writer's query needs no run
                state = task.step(state, role, Completion.ofText(query)).next();
            }
        }
        return out;
    }

    /** The query that shows what the question needs: the city looked up by a pattern, the tier codes, or both. */
    static String exploration(SqlItem item) {
        return ShopWorlds.lookup(item.keys());
    }
}

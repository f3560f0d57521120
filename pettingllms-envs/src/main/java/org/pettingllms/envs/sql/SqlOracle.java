package org.pettingllms.envs.sql;

import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;
import org.pettingllms.envs.data.ItemOracle;

/**
 * A policy that knows the gold queries (evaluation without a model): found by the database named in the prompt, the writer
 * answers the gold query and the explorer a query showing the stored values the question needs. With {@code wrong},
 * the writer answers the query a writer trusting the question's wording would write ({@link SqlItem#naive}), which
 * runs and answers wrongly, and the explorer looks at nothing useful. A reward that scores this oracle below 100% (or
 * the wrong one above 0%) is broken.
 */
public final class SqlOracle extends ItemOracle<SqlItem> {
    public SqlOracle(List<SqlItem> items, boolean wrong) {
        super(items, wrong, SqlItem::id); // questions repeat across databases; ids do not
    }

    @Override
    protected String unknown(Prompt prompt) {
        return "SELECT 'I do not know this problem'";
    }

    @Override
    protected String answer(SqlItem item, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        boolean explorer =
                CompactPrompts.isFor(text, "sql-v1", SqlTask.EXPLORER) || text.contains(SqlPrompts.EXPLORER_SYSTEM);
        String query;
        if (explorer) {
            query = wrong() ? "SELECT count(*) FROM orders" : exploration(item);
        } else {
            query = wrong() ? (item.naive().isEmpty() ? "SELECT 1 WHERE 0" : item.naive()) : item.gold();
        }
        return prompt.style() == org.pettingllms.core.data.PromptStyle.COMPACT ? query : "```sql\n" + query + "\n```";
    }

    /** The stored values the question needs, and no others: the warm-up's look-up (generated shops), else the gold rows. */
    static String exploration(SqlItem item) {
        return item.keys().isEmpty() ? item.gold() : ShopWorlds.lookup(item.keys());
    }
}

package org.pettingllms.envs.sql;

import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.ItemLookup;

/**
 * A policy that knows the gold queries (evaluation without a model): found by the database named in the prompt, the writer
 * answers the gold query and the explorer a query showing the stored values the question needs. With {@code wrong},
 * the writer answers the query a writer trusting the question's wording would write ({@link SqlItem#naive}), which
 * runs and answers wrongly, and the explorer looks at nothing useful. A reward that scores this oracle below 100% (or
 * the wrong one above 0%) is broken.
 */
public final class SqlOracle implements TextPolicy {
    private final List<SqlItem> items;
    private final boolean wrong;

    public SqlOracle(List<SqlItem> items, boolean wrong) {
        this.items = List.copyOf(items);
        this.wrong = wrong;
    }

    @Override
    public String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        SqlItem item = ItemLookup.in(text, items, SqlItem::id); // questions repeat across databases; ids do not
        if (item == null) {
            return "SELECT 'I do not know this problem'";
        }
        boolean explorer =
                text.startsWith("sql-v1 " + SqlTask.EXPLORER + "\n") || text.contains(SqlPrompts.EXPLORER_SYSTEM);
        String query;
        if (explorer) {
            query = wrong ? "SELECT count(*) FROM orders" : exploration(item);
        } else {
            query = wrong ? (item.naive().isEmpty() ? "SELECT 1 WHERE 0" : item.naive()) : item.gold();
        }
        return prompt.style() == org.pettingllms.core.data.PromptStyle.COMPACT ? query : "```sql\n" + query + "\n```";
    }

    /** The stored values the question needs, and no others: the warm-up's look-up (generated shops), else the gold rows. */
    static String exploration(SqlItem item) {
        return item.keys().isEmpty() ? item.gold() : ShopWorlds.lookup(item.keys());
    }
}

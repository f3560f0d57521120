package org.pettingllms.envs.sql;

import java.util.List;

/**
 * One text-to-SQL problem: a question about the SQLite database at {@code database}, its schema as the model reads
 * it, and the gold query.
 *
 * @param keys  the values as stored that a correct query needs and the question does not spell (a city's stored
 *              spelling, a tier's code): what exploring the data finds; empty for a dataset row
 * @param naive the query a writer who trusts the question's wording would write (the stored values guessed from it):
 *              the wrong answer the generator makes sure is wrong; empty for a dataset row
 */
public record SqlItem(
        String id, String database, String schema, String question, String gold, List<String> keys, String naive) {
    public SqlItem {
        keys = List.copyOf(keys);
    }
}

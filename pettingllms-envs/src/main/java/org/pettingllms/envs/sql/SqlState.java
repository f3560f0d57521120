package org.pettingllms.envs.sql;

/**
 * The state of a text-to-SQL episode: the problem and each role's latest query (null before its first turn).
 *
 * @param success whether the writer's latest query matches the gold one by execution
 */
public record SqlState(SqlItem item, Exploration explorer, Written writer, boolean success) {
    /** The explorer's query and what it saw: the rows as text, or why there were none. */
    public record Exploration(String query, String seen) {}

    /** The writer's query and how it fared (the verdict's reason, shown to no role). */
    public record Written(String query, boolean correct, String reason) {}

    static SqlState start(SqlItem item) {
        return new SqlState(item, null, null, false);
    }
}

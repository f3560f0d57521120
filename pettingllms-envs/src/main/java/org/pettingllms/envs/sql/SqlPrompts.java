package org.pettingllms.envs.sql;

import java.util.List;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * Prompts of the SQL team. The explorer sees the schema and the question and writes one query to look at the data;
 * the writer sees the schema, the question and, from the explorer, its latest query and the rows it returned, and
 * writes the query that answers the question (the writer alone: its own latest query and its rows, in the same
 * lines). Both answer a query alone ({@code compact}) or in a ```sql``` block
 * ({@code chat}). The compact style (small models) keeps a header line, the schema, {@code Q:}, the explorer's query
 * and rows, and a {@code >} cue.
 */
final class SqlPrompts {
    static final String EXPLORER_SYSTEM =
            "You explore a SQLite database by writing one read-only query that shows the values a question needs.";
    static final String WRITER_SYSTEM = "You write the SQLite query that answers a question about a database.";
    /** Rows of an exploration shown to the writer. */
    static final int SHOWN_ROWS = 12;
    /** The line after the shown rows when there were more. */
    static final String MORE_ROWS = "(more rows)";
    /** What an empty result shows. */
    static final String NO_ROWS = "(no rows)";

    private SqlPrompts() {}

    /** @param alone the single agent: the rows shown are its own latest query's, and it is told how to answer */
    static Prompt compact(String taskId, SqlState s, String role, boolean alone) {
        StringBuilder sb = CompactPrompts.header(taskId, role)
                .append("db: ")
                .append(s.item().id())
                .append('\n')
                .append(s.item().schema())
                .append("\nQ: ")
                .append(s.item().question())
                .append('\n');
        if (role.equals(SqlTask.WRITER) && s.explorer() != null) {
            sb.append("explored: ").append(oneLine(s.explorer().query())).append('\n');
            sb.append(s.explorer().seen()).append('\n');
            if (alone) {
                sb.append("(the same query again is the answer)\n");
            }
        }
        return CompactPrompts.cue(sb);
    }

    /** @param alone the single agent: the rows shown are its own latest query's */
    static Prompt chat(SqlState s, String role, boolean alone) {
        StringBuilder u = new StringBuilder("Database: ")
                .append(s.item().id())
                .append("\nSchema:\n")
                .append(s.item().schema())
                .append("\n\nQuestion: ")
                .append(s.item().question())
                .append("\n\n");
        if (role.equals(SqlTask.EXPLORER)) {
            u.append("Write one SELECT query that shows the stored values this question depends on (how names and"
                    + " codes are spelled in the data). Put it in a ```sql``` block.");
            return Prompt.chat(EXPLORER_SYSTEM, u.toString());
        }
        if (s.explorer() != null) {
            u.append(alone ? "You ran:\n```sql\n" : "An explorer ran:\n```sql\n")
                    .append(s.explorer().query())
                    .append("\n```\nIt returned:\n")
                    .append(s.explorer().seen())
                    .append("\n\n");
        }
        u.append("Write the SQLite query that answers the question, using the values as they are stored. Put it in a"
                + " ```sql``` block.");
        if (alone) {
            u.append(" It runs and you see its rows; write the same query again when it is your answer.");
        }
        return Prompt.chat(WRITER_SYSTEM, u.toString());
    }

    /** What an exploration returned, as the writer reads it: up to {@link #SHOWN_ROWS} rows of values joined by | . */
    static String seen(SqlRunner.Result r) {
        if (!r.ok() && r.rows().isEmpty()) {
            return "(" + r.outcome().name().toLowerCase() + ": " + oneLine(r.message()) + ")";
        }
        if (r.rows().isEmpty()) {
            return NO_ROWS;
        }
        StringBuilder sb = new StringBuilder();
        List<List<Object>> rows = r.rows();
        for (int i = 0; i < Math.min(SHOWN_ROWS, rows.size()); i++) {
            if (i > 0) {
                sb.append('\n');
            }
            sb.append(
                    String.join(" | ", rows.get(i).stream().map(String::valueOf).toList()));
        }
        if (rows.size() > SHOWN_ROWS || r.outcome() == SqlRunner.Outcome.TRUNCATED) {
            sb.append('\n').append(MORE_ROWS);
        }
        return sb.toString();
    }

    private static String oneLine(String s) {
        String line = s.strip().replace('\n', ' ');
        return line.length() > 200 ? line.substring(0, 200) : line;
    }
}

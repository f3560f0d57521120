package org.pettingllms.envs.sql;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.DatasetFiles;
import org.pettingllms.envs.data.Row;

/**
 * Text-to-SQL datasets in Spider's and BIRD's layout: a questions file (JSON or JSONL) whose rows hold {@code db_id},
 * {@code question} and the gold query in {@code query} (Spider) or {@code SQL} (BIRD, whose {@code evidence}, the
 * external knowledge it gives, is put after the question as BIRD's evaluation does), and the databases as
 * {@code <databases>/<db_id>/<db_id>.sqlite}. The schema the model reads is the database's own {@code CREATE TABLE}
 * statements, read through {@link SqlRunner}.
 */
public final class SpiderRows {
    private SpiderRows() {}

    /** The rows of {@code questions} on the databases in {@code databases}, gold queries not run. */
    public static List<SqlItem> load(Path questions, Path databases) {
        return load(questions, databases, null);
    }

    /**
     * The rows, each gold query run once into {@code gold} (when not null): one that does not run whole under the
     * task's limits is an error naming its row.
     */
    static List<SqlItem> load(Path questions, Path databases, GoldResults gold) {
        if (!Files.isDirectory(databases)) {
            throw new DatasetException("no database folder " + databases + " (expected <db_id>/<db_id>.sqlite inside)");
        }
        Map<String, String> schemas = new HashMap<>();
        List<SqlItem> out = new ArrayList<>();
        for (Row row : DatasetFiles.read(questions)) {
            String db = row.text("db_id");
            Path file = databases.resolve(db).resolve(db + ".sqlite");
            if (!Files.isRegularFile(file)) {
                throw row.error("db_id", "names '" + db + "', but there is no " + file);
            }
            String schema = schemas.computeIfAbsent(db, k -> schema(file));
            String question = row.text("question");
            String evidence = row.optionalText("evidence").orElse("").strip();
            if (!evidence.isEmpty()) {
                question = question.strip() + "\nHint: " + evidence;
            }
            String query = row.text("query", "SQL");
            String why = gold == null ? null : gold.failure(file, query);
            if (why != null) {
                throw row.error(
                        row.fields().containsKey("query") ? "query" : "SQL",
                        "is a gold query that does not run whole on " + file + " (" + why + "); raise"
                                + " task.options.timeoutMs or maxRows, or drop the row");
            }
            Object qid = row.fields().get("question_id");
            String id = db + "-" + (qid != null ? String.valueOf(qid) : Long.toString(row.line()));
            out.add(new SqlItem(id, file.toString(), schema, question, query, List.of(), ""));
        }
        if (out.isEmpty()) {
            throw new DatasetException("dataset file " + questions + " has no rows");
        }
        return out;
    }

    /** The database's tables as their {@code CREATE TABLE} statements, one per line (whitespace made single). */
    static String schema(Path file) {
        SqlRunner.Result r = new SqlRunner(file, SqlRunner.Limits.DEFAULT)
                .run("SELECT sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid");
        if (!r.ok()) {
            throw new DatasetException("cannot read the schema of " + file + ": " + r.message());
        }
        return r.rows().stream()
                .map(row -> String.valueOf(row.get(0)).replaceAll("\\s+", " ").strip())
                .collect(Collectors.joining("\n"));
    }
}

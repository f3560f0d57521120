package org.pettingllms.envs.math;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.DatasetFiles;
import org.pettingllms.envs.data.Row;

/**
 * Math datasets in their common layouts: the question in {@code problem | question | prompt} (with
 * OlympiadBench's {@code context} in front when present), the reference in {@code gt | final_answer | answer |
 * solution}. Answers given as a worked solution are reduced to the final answer: GSM8K's {@code #### n}, else
 * the last {@code \boxed{}}; OlympiadBench's {@code final_answer} lists are joined with commas.
 */
public final class MathRows {
    /** @param answer the reference final answer, as text */
    public record MathItem(String id, String question, String answer) {}

    private MathRows() {}

    public static List<MathItem> load(Path file) {
        List<MathItem> out = new ArrayList<>();
        for (Row row : DatasetFiles.read(file)) {
            out.add(item(row));
        }
        if (out.isEmpty()) {
            throw new DatasetException("dataset file " + file + " has no rows");
        }
        return out;
    }

    static MathItem item(Row row) {
        String question = row.text("problem", "question", "prompt");
        String context = row.optionalText("context").orElse("");
        if (!context.isEmpty()) {
            question = context.strip() + "\n\n" + question;
        }
        String id = row.optionalText("id")
                .or(() -> row.optionalText("idx"))
                .or(() -> row.optionalText("task_id"))
                .orElse(Long.toString(row.line()));
        return new MathItem(id, question, answer(row));
    }

    private static String answer(Row row) {
        String field = row.firstPresent("gt", "final_answer", "answer", "solution")
                .orElseThrow(
                        () -> new DatasetException(row.where() + ": missing field gt | final_answer | answer | solution"
                                + " (expected the reference answer)"));
        Object v = row.fields().get(field);
        if (v instanceof List<?> items) {
            if (items.isEmpty()) {
                throw row.error(field, "is an empty list (expected at least one answer)");
            }
            List<String> parts = new ArrayList<>();
            for (Object o : items) {
                parts.add(
                        String.valueOf(o).strip().replaceAll("^\\$+|\\$+$", "").strip());
            }
            return String.join(", ", parts);
        }
        String text = row.textOf(field);
        int hashes = text.lastIndexOf("####");
        if (hashes >= 0) {
            String a = text.substring(hashes + 4).strip();
            if (a.isEmpty()) {
                throw row.error(field, "has an empty '####' answer");
            }
            return a;
        }
        var boxed = AnswerExtractor.lastBoxed(text);
        if (boxed.isPresent()) {
            return boxed.get();
        }
        if (field.equals("solution")) {
            throw row.error(field, "has no \\boxed{} final answer (expected a worked solution ending in \\boxed{...})");
        }
        return text.strip();
    }
}

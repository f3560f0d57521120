package org.pettingllms.envs.search;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.DatasetFiles;
import org.pettingllms.envs.data.Row;

/**
 * Question files of the search task (JSONL, JSON or Parquet), in two layouts, told apart per row:
 *
 * <ul>
 *   <li>HotpotQA's distractor layout ({@code id}, {@code question}, {@code answer}, {@code type},
 *       {@code supporting_facts {title[], sent_id[]}}, {@code context {title[], sentences[][]}}): a row's ten
 *       paragraphs are its own passages (title, and its sentences joined as HotpotQA writes them), its supporting
 *       facts' titles the supporting passages;
 *   <li>Search-R1's and FlashRAG's question files ({@code id}, {@code question}, {@code golden_answers}: a list or
 *       one text): no passages (the task searches a corpus file or a server) and no supporting passages.
 * </ul>
 */
public final class SearchRows {
    private SearchRows() {}

    public static List<SearchItem> load(Path file) {
        List<SearchItem> out = new ArrayList<>();
        for (Row row : DatasetFiles.read(file)) {
            out.add(row.fields().get("context") != null ? hotpot(row) : qa(row));
        }
        if (out.isEmpty()) {
            throw new DatasetException("dataset file " + file + " has no rows");
        }
        return out;
    }

    static SearchItem hotpot(Row row) {
        String question = row.text("question");
        String answer = row.text("answer");
        Map<?, ?> context = row.object("context");
        List<?> titles = list(row, context, "context", "title");
        List<?> sentences = list(row, context, "context", "sentences");
        if (titles.size() != sentences.size()) {
            throw row.error("context", "has " + titles.size() + " titles but " + sentences.size() + " paragraphs");
        }
        List<Passage> passages = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < titles.size(); i++) {
            String title = String.valueOf(titles.get(i));
            if (!(sentences.get(i) instanceof List<?> ss)) {
                throw row.error("context", "paragraph " + i + " is not a list of sentences");
            }
            StringBuilder text = new StringBuilder();
            for (Object s : ss) {
                text.append(s); // HotpotQA's sentences carry their own leading spaces
            }
            if (seen.add(title)) {
                passages.add(new Passage(title, title, text.toString()));
            }
        }
        Set<String> supporting = new LinkedHashSet<>();
        Object facts = row.fields().get("supporting_facts");
        if (facts != null) {
            for (Object t : list(row, row.object("supporting_facts"), "supporting_facts", "title")) {
                supporting.add(String.valueOf(t));
            }
        }
        String id = row.optionalText("id").orElse(row.optionalText("_id").orElse("row-" + row.line()));
        String type = row.optionalText("type").orElse("");
        return new SearchItem(id, question, List.of(answer), List.copyOf(supporting), type, passages);
    }

    static SearchItem qa(Row row) {
        String question = row.text("question");
        String name = row.firstPresent("golden_answers", "answers", "answer")
                .orElseThrow(() -> new DatasetException(row.where()
                        + ": missing field golden_answers | answers | answer (expected a list of answers, or one)"));
        Object v = row.fields().get(name);
        List<String> answers = new ArrayList<>();
        if (v instanceof String || v instanceof Number) {
            answers.add(row.textOf(name));
        } else {
            for (Object a : row.list(name)) {
                if (a != null && !String.valueOf(a).isBlank()) {
                    answers.add(String.valueOf(a));
                }
            }
        }
        if (answers.isEmpty()) {
            throw row.error(name, "has no answer (expected a non-empty list of answers)");
        }
        String id = row.optionalText("id").orElse("row-" + row.line());
        return new SearchItem(id, question, answers, List.of(), "", List.of());
    }

    private static List<?> list(Row row, Map<?, ?> obj, String field, String key) {
        Object v = obj.get(key);
        if (v instanceof List<?> l) {
            return l;
        }
        throw row.error(field, "has no list '" + key + "' (got " + Row.describe(v) + ")");
    }
}

package org.pettingllms.envs.search;

import java.util.List;

/**
 * One question of the search task.
 *
 * @param answers    the gold answers (any one matches)
 * @param supporting the titles of the passages that hold the evidence (HotpotQA's supporting facts; a generated
 *                   world's two facts): what the searcher's local reward counts; empty when a dataset has none
 * @param type       {@code bridge} or {@code comparison} (HotpotQA's types), or empty
 * @param passages   the question's own closed corpus (a generated world, HotpotQA's ten paragraphs); empty when the
 *                   task searches one shared corpus (a file, a server)
 */
public record SearchItem(
        String id,
        String question,
        List<String> answers,
        List<String> supporting,
        String type,
        List<Passage> passages) {
    public SearchItem {
        answers = List.copyOf(answers);
        supporting = List.copyOf(supporting);
        passages = List.copyOf(passages);
        if (answers.isEmpty()) {
            throw new IllegalArgumentException("question " + id + " has no gold answer");
        }
    }
}

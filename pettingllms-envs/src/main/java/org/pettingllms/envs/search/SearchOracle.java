package org.pettingllms.envs.search;

import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.ItemOracle;

/**
 * A policy that knows the questions (evaluation without a model), found by the question in the prompt. The searcher
 * searches the title of the first supporting passage the prompt does not show yet; the answerer answers the gold
 * answer once every supporting passage is shown (or at the last turn), else asks for more; alone, it searches until
 * then and answers. With {@code wrong}, the searcher searches the question as worded, and the answerer answers at
 * once with another entity of the question (a supporting title that is not the answer). A reward that scores this
 * oracle below 100% on generated worlds (or the wrong one above 0%) is broken.
 */
public final class SearchOracle extends ItemOracle<SearchItem> {
    public SearchOracle(List<SearchItem> items, boolean wrong) {
        super(items, wrong, SearchItem::question);
    }

    @Override
    protected String unknown(Prompt prompt) {
        return prompt.style() == PromptStyle.COMPACT
                ? "I do not know this question"
                : "<answer>I do not know this question</answer>";
    }

    @Override
    protected String answer(SearchItem item, Prompt prompt, SplittableRandom rng) {
        String text = prompt.text();
        boolean compact = prompt.style() == PromptStyle.COMPACT;
        boolean searcher = SearchPrompts.isSearcher(prompt);
        boolean alone = text.contains("(calls left ") || text.contains(SearchPrompts.ALONE_SYSTEM);
        boolean last = text.contains("(last turn)")
                || text.contains("This is the last turn")
                || text.contains("This is your last reply");
        String missing = item.supporting().stream()
                .filter(t -> !shown(text, t, compact))
                .findFirst()
                .orElse(null);
        if (searcher) {
            String first = item.supporting().isEmpty()
                    ? item.question()
                    : item.supporting().get(0);
            String q = wrong() ? first : missing != null ? missing : first;
            return compact ? q : "<search>" + q + "</search>";
        }
        if (wrong()) {
            String other = item.supporting().stream()
                    .filter(t -> !AnswerMatch.exact(t, item.answers()))
                    .findFirst()
                    .orElse("unknown");
            return compact ? other : "<answer>" + other + "</answer>";
        }
        if (missing != null && !last) {
            if (alone) {
                return compact ? "search: " + missing : "<search>" + missing + "</search>";
            }
            return compact ? "more" : "<more>" + missing + "</more>";
        }
        String a = item.answers().get(0);
        return compact ? a : "<answer>" + a + "</answer>";
    }

    /**
     * The question's item. Worlds repeat questions (the same company name, another founder), so among the items whose
     * question the prompt holds, the one most of whose passages the prompt shows.
     */
    @Override
    protected SearchItem find(String text) {
        SearchItem first = super.find(text);
        if (first == null) {
            return null;
        }
        SearchItem best = first;
        long bestShown = -1;
        for (SearchItem i : items()) {
            if (i.question().equals(first.question())) {
                long shown = i.passages().stream()
                        .filter(p -> text.contains(SearchPrompts.oneLine(p.text())))
                        .count();
                if (shown > bestShown) {
                    best = i;
                    bestShown = shown;
                }
            }
        }
        return best;
    }

    /** Whether the prompt shows the passage titled {@code title} among its results. */
    static boolean shown(String text, String title, boolean compact) {
        return compact ? text.contains("\n- " + title + ": ") : text.contains("(Title: " + title + ") ");
    }
}

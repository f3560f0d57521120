package org.pettingllms.envs.search;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;
import org.pettingllms.envs.data.TextLines;

/**
 * Prompts of the search team. The searcher sees the question, its earlier queries, the passages they found and what
 * the answerer asked for, and writes the next query; the answerer sees the question and the passages (never the
 * queries), and answers or asks for more. The answerer alone sees what the searcher would and may do either.
 * Retrieved text is only ever in a prompt, never in a completion, so it is never trained on.
 *
 * <p>{@code chat} is Search-R1's format: {@code <search>query</search>}, the results in {@code <information>} as
 * {@code Doc i(Title: t) text}, {@code <answer>...</answer>} (and {@code <more>what is missing</more>}).
 * {@code compact} (small models) writes the results one a line ({@code - Title: text}), a header line and a
 * {@code >} cue; its replies are bare: a query, an answer, {@code more} (or {@code more: what}); alone,
 * {@code search: words} searches and anything else answers.
 */
final class SearchPrompts {
    /** Whether {@code prompt} is the searcher's (either style). */
    static boolean isSearcher(Prompt prompt) {
        return CompactPrompts.isFor(prompt.text(), "search-v1", SearchTask.SEARCHER)
                || prompt.text().contains(SEARCHER_SYSTEM);
    }

    static final String SEARCHER_SYSTEM = "You search a collection of encyclopedia passages for the evidence a question"
            + " needs. Write one search query between <search> and </search>.";
    static final String ANSWERER_SYSTEM = "You answer a question from the passages a searcher found.";
    static final String ALONE_SYSTEM = "You answer questions by searching a collection of encyclopedia passages.";

    private SearchPrompts() {}

    static Prompt compact(String taskId, SearchState s, String role, boolean alone, int callsLeft) {
        StringBuilder sb = CompactPrompts.header(taskId, role)
                .append("Q: ")
                .append(s.item().question())
                .append('\n');
        if (role.equals(SearchTask.SEARCHER) || alone) {
            for (String q : s.queries()) {
                sb.append("searched: ").append(oneLine(q)).append('\n');
            }
        }
        for (Passage p : s.evidence()) {
            sb.append("- ")
                    .append(p.title())
                    .append(": ")
                    .append(oneLine(p.text()))
                    .append('\n');
        }
        if (role.equals(SearchTask.SEARCHER) && !s.request().isEmpty()) {
            sb.append("asks: ").append(oneLine(s.request())).append('\n');
        }
        if (!role.equals(SearchTask.SEARCHER)) {
            sb.append(callsLeft <= 1 ? "(last turn)\n" : alone ? "(calls left " + callsLeft + ")\n" : "");
        }
        return CompactPrompts.cue(sb);
    }

    static Prompt chat(SearchState s, String role, boolean alone, int callsLeft) {
        StringBuilder u =
                new StringBuilder("Question: ").append(s.item().question()).append("\n\n");
        if (role.equals(SearchTask.SEARCHER) || alone) {
            if (!s.queries().isEmpty()) {
                u.append(alone ? "Your searches so far:\n" : "Searches so far:\n");
                for (int i = 0; i < s.queries().size(); i++) {
                    u.append(i + 1)
                            .append(". ")
                            .append(oneLine(s.queries().get(i)))
                            .append('\n');
                }
                u.append('\n');
            }
        }
        if (!s.evidence().isEmpty()) {
            u.append(information(s)).append("\n\n");
        } else if (!role.equals(SearchTask.SEARCHER)) {
            u.append("No passages found yet.\n\n");
        }
        if (role.equals(SearchTask.SEARCHER)) {
            if (!s.request().isEmpty()) {
                u.append("The answerer asks for: ").append(oneLine(s.request())).append("\n\n");
            }
            u.append("Write the next search query as <search>query</search>.");
            return Prompt.chat(SEARCHER_SYSTEM, u.toString());
        }
        if (alone) {
            u.append(
                    callsLeft <= 1
                            ? "This is your last reply: answer with <answer>...</answer> (a few words)."
                            : "Search with <search>query</search> (you will see what it finds), or answer with"
                                    + " <answer>...</answer> (a few words). Replies left: " + callsLeft + ".");
            return Prompt.chat(ALONE_SYSTEM, u.toString());
        }
        u.append(
                callsLeft <= 1
                        ? "This is the last turn: answer with <answer>...</answer> (a few words)."
                        : "Answer with <answer>...</answer> (a few words), or write <more>what is missing</more> to have the"
                                + " searcher look again.");
        return Prompt.chat(ANSWERER_SYSTEM, u.toString());
    }

    /** The passages as Search-R1 shows them. */
    static String information(SearchState s) {
        StringBuilder sb = new StringBuilder("<information>");
        int i = 1;
        for (Passage p : s.evidence()) {
            sb.append(i == 1 ? "" : "\n")
                    .append("Doc ")
                    .append(i++)
                    .append("(Title: ")
                    .append(p.title())
                    .append(") ")
                    .append(oneLine(p.text()));
        }
        return sb.append("</information>").toString();
    }

    static String oneLine(String s) {
        return TextLines.oneLine(s, 400);
    }
}

package org.pettingllms.envs.search;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The state of a search episode.
 *
 * @param queries  the queries searched so far, in order
 * @param evidence the distinct passages those searches returned, in the order first found (at most
 *                 {@link #MAX_EVIDENCE}: the oldest go first)
 * @param found    the supporting titles (lower case) any search returned: what the searcher's reward counts
 * @param request  what the answerer last asked the searcher to look for (empty: nothing)
 * @param answer   the answer given (null before one)
 * @param success  whether the answer matches a gold one exactly
 * @param replies  the answerer's replies so far (alone: its calls), which tell a reply whether a turn follows it
 */
public record SearchState(
        SearchItem item,
        List<String> queries,
        List<Passage> evidence,
        Set<String> found,
        String request,
        String answer,
        boolean success,
        int replies) {
    /** Passages the prompts show at most. */
    public static final int MAX_EVIDENCE = 9;

    public SearchState {
        queries = List.copyOf(queries);
        evidence = List.copyOf(evidence);
        found = Set.copyOf(found);
    }

    static SearchState start(SearchItem item) {
        return new SearchState(item, List.of(), List.of(), Set.of(), "", null, false, 0);
    }

    /** After a search for {@code query} returned {@code hits}. */
    SearchState searched(String query, List<Passage> hits) {
        List<String> q = new ArrayList<>(queries);
        q.add(query);
        List<Passage> ev = new ArrayList<>(evidence);
        Set<String> f = new LinkedHashSet<>(found);
        Set<String> supporting = supportingTitles(item);
        for (Passage p : hits) {
            if (ev.stream().noneMatch(e -> e.id().equals(p.id()))) {
                ev.add(p);
            }
            String t = p.title().toLowerCase(Locale.ROOT);
            if (supporting.contains(t)) {
                f.add(t);
            }
        }
        while (ev.size() > MAX_EVIDENCE) {
            ev.remove(0);
        }
        return new SearchState(item, q, ev, f, "", answer, success, replies);
    }

    SearchState asked(String what) {
        return new SearchState(item, queries, evidence, found, what, answer, success, replies);
    }

    SearchState answered(String a, boolean right) {
        return new SearchState(item, queries, evidence, found, request, a, right, replies);
    }

    /** After one more reply of the answerer. */
    SearchState replied() {
        return new SearchState(item, queries, evidence, found, request, answer, success, replies + 1);
    }

    /** The share of the supporting passages found so far (0 when the item names none). */
    double recall() {
        int n = supportingTitles(item).size();
        return n == 0 ? 0 : (double) found.size() / n;
    }

    /** Whether a supporting passage is still unfound (false when the item names none: then nothing is known). */
    boolean evidenceMissing() {
        return found.size() < supportingTitles(item).size();
    }

    static Set<String> supportingTitles(SearchItem item) {
        Set<String> s = new LinkedHashSet<>();
        for (String t : item.supporting()) {
            s.add(t.toLowerCase(Locale.ROOT));
        }
        return s;
    }
}

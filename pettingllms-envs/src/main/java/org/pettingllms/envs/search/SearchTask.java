package org.pettingllms.envs.search;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.envs.data.DatasetTask;
import org.pettingllms.envs.data.Items;

/**
 * {@code search-v1} (ENVIRONMENTS.md): a {@code searcher} writes queries and reads what they find; an
 * {@code answerer} sees only the passages the searcher's queries returned (not the queries) and answers, or asks for
 * another search (its request is shown to the searcher). A turn is the searcher's query, then the answerer's reply;
 * the episode ends at the answer or after T turns. Retrieval is BM25 over the question's own passages (generated
 * worlds, HotpotQA's distractor paragraphs) or over one shared corpus (a corpus file's index, or a retrieval server),
 * the top {@code topk} passages of each query.
 *
 * <p>Rewards. Answerer: 1 (local and team) when its answer matches a gold answer exactly after SQuAD's normalising
 * ({@link AnswerMatch}), else 0; a request for more is 0; a reply that is neither is -1 (local: the format penalty).
 * An answer given while a supporting passage is still unfound and a turn remains is a guess: its local reward is -1,
 * right or wrong (the team's is still the match). Each (role, turn) group is paid on its own turn (AT-GRPO.md: no
 * returns across turns), so without this a request for more (0) lost to a guess: a comparison's guess is right half
 * the time, and the first learning check's answerer learnt to answer at once (mean turns 1.98 to 1.30 greedy). Now
 * a guess earns at most what asking earns (right: team 1 + local -1; wrong: -1). Datasets that name no supporting
 * passages have no guesses.
 * Searcher (the process reward): each query is paid the share of the question's supporting passages that it is
 * the first to return, so a searcher's rewards over an episode sum to its retrieval recall (the share of the
 * supporting passages any of its queries returned), a repeated search earns nothing, and on a dataset that names
 * no supporting passages it is 0; a reply without a query is -1. Success: the answer matches.
 *
 * <p>With roles {@code [answerer]}, the single agent with the team's tools and model calls: {@link #CALLS_PER_TURN}
 * replies for each of the team's T turns, each a search (paid as the searcher's) or the answer (paid as the
 * answerer's; the episode ends).
 */
public final class SearchTask extends DatasetTask<SearchState, SearchItem> implements Demonstrations {
    public static final String SEARCHER = "searcher";
    public static final String ANSWERER = "answerer";
    /** Model calls the team makes per turn (searcher, answerer): what the answerer alone gets per turn. */
    public static final int CALLS_PER_TURN = 2;

    private final Function<SearchItem, Retriever> retrievers;
    private final int topk;
    private final LongAdder queries = new LongAdder();
    private final LongAdder empty = new LongAdder();
    private final DoubleAdder supportingFound = new DoubleAdder();

    /** @param retrievers the retriever a question's searches use (its own passages' index, or a shared one) */
    public SearchTask(
            List<String> roles,
            int maxTurns,
            Items<SearchItem> items,
            Function<SearchItem, Retriever> retrievers,
            int topk) {
        super(
                roles,
                List.of(SEARCHER, ANSWERER),
                ANSWERER,
                teamCalls(roles, maxTurns, CALLS_PER_TURN),
                items,
                SearchState::start);
        if (topk < 1 || topk > Bm25Index.MAX_TOPK) {
            throw new IllegalArgumentException("topk must be 1 to " + Bm25Index.MAX_TOPK + ", got " + topk);
        }
        this.retrievers = retrievers;
        this.topk = topk;
    }

    @Override
    public String id() {
        return "search-v1";
    }

    @Override
    protected Prompt compactPrompt(SearchState state, String role, int turn) {
        return SearchPrompts.compact(id(), state, role, alone(), maxTurns() - turn);
    }

    @Override
    protected Prompt chatPrompt(SearchState state, String role, int turn) {
        return SearchPrompts.chat(state, role, alone(), maxTurns() - turn);
    }

    @Override
    public Transition<SearchState> step(SearchState s, String role, Completion completion) {
        Replies r = Replies.parse(completion.text(), checkRole(role), alone());
        Transition<SearchState> t = reply(s, role, r);
        return role.equals(ANSWERER) ? t.withNext(t.next().replied()) : t;
    }

    private Transition<SearchState> reply(SearchState s, String role, Replies r) {
        return switch (r.kind()) {
            case SEARCH -> search(s, r.text());
            case ANSWER -> answer(s, r.text());
            case MORE ->
                new Transition<>(
                        s.asked(r.text()),
                        RewardParts.ZERO,
                        false,
                        false,
                        StepOutcome.OK,
                        r.text().isEmpty() ? "asks for more" : "asks for: " + r.text());
            case NONE ->
                new Transition<>(
                        s,
                        new RewardParts(-1, 0, 0),
                        false,
                        false,
                        StepOutcome.UNPARSEABLE,
                        role.equals(SEARCHER) ? "no query" : alone() ? "no search and no answer" : "no answer");
        };
    }

    private Transition<SearchState> search(SearchState s, String query) {
        List<Passage> hits = retrievers.apply(s.item()).search(query, topk).stream()
                .map(Retriever.Hit::passage)
                .toList();
        SearchState next = s.searched(query, hits);
        int supporting = SearchState.supportingTitles(s.item()).size();
        double gain =
                supporting == 0 ? 0 : (double) (next.found().size() - s.found().size()) / supporting;
        queries.increment();
        if (hits.isEmpty()) {
            empty.increment();
        }
        supportingFound.add(gain);
        String info = hits.isEmpty()
                ? "no results"
                : hits.size() + " results ("
                        + String.join(", ", hits.stream().map(Passage::title).toList()) + ")"
                        + (supporting == 0
                                ? ""
                                : ", supporting found " + next.found().size() + "/" + supporting);
        return new Transition<>(next, new RewardParts(gain, 0, 0), false, false, StepOutcome.OK, info);
    }

    private Transition<SearchState> answer(SearchState s, String answer) {
        boolean right = AnswerMatch.exact(answer, s.item().answers());
        double f1 = AnswerMatch.f1(answer, s.item().answers());
        double r = right ? 1 : 0;
        boolean guess = s.evidenceMissing() && s.replies() + 1 < maxTurns();
        return new Transition<>(
                s.answered(answer, right),
                new RewardParts(guess ? -1 : r, r, 0),
                true,
                right,
                right ? StepOutcome.SOLVED : StepOutcome.OK,
                (right ? "right" : "wrong")
                        + (guess ? " guess" : "")
                        + String.format(java.util.Locale.ROOT, " (F1 %.2f): ", f1)
                        + answer);
    }

    /**
     * Since the last call: {@code search/queries} searched, {@code search/no_results} of them finding nothing, and
     * {@code search/supporting_found}, the supporting passages found in units of a question's supporting set (over
     * the episodes, their retrieval recall summed).
     */
    @Override
    public Map<String, Double> drainMetrics() {
        return Map.of(
                "search/queries", (double) queries.sumThenReset(),
                "search/no_results", (double) empty.sumThenReset(),
                "search/supporting_found", supportingFound.sumThenReset());
    }

    /**
     * Warm-up demonstrations, deliberately imperfect (so reinforcement learning has a searcher to improve): the
     * oracle's replies at skill {@code 1 - noise}, whose wrong searcher searches the first hop again (a bridge's
     * company, a comparison's first entity: never the name only a passage shows) and whose wrong answerer names
     * another entity of the question ({@link SearchOracle}), over the first {@code turns} turns. Every query
     * demonstrated is a name to copy from the prompt, never the question as worded: a copy of a whole question is
     * what the first warm-up's model memorised in place of learning to copy.
     *
     * <p>The searcher's habit ({@code settings.habits()}): in that share of the episodes every search after the first
     * hop's passage is shown searches the first hop again (the team's searcher, or the single agent's searches: the
     * same habit for both lineups, so the table compares like with like), while the answers are demonstrated at the
     * noise given. A habit held half the time makes each later search's group a choice that is right on every
     * question (search the name the first passage shows), where the oracle's noise, drawn per reply, made the
     * answerer guess as well.
     */
    @Override
    public List<Demo> demonstrations(Problem problem, PromptStyle style, Settings settings, SplittableRandom rng) {
        TextPolicy team = scripted(1 - settings.noise(), List.of(problem));
        SearchItem item = row(problem);
        if (settings.habits() > 0 && !item.supporting().isEmpty() && rng.nextDouble() < settings.habits()) {
            TextPolicy right = team;
            String first = item.supporting().get(0);
            team = (policy, prompt, r) -> {
                String reply = right.answer(policy, prompt, r);
                Replies parsed = Replies.parse(reply, SearchPrompts.isSearcher(prompt) ? SEARCHER : ANSWERER, alone());
                boolean again = parsed.kind() == Replies.Kind.SEARCH
                        && SearchOracle.shown(prompt.text(), first, prompt.style() == PromptStyle.COMPACT);
                return again ? reply.replace(parsed.text(), first) : reply;
            };
        }
        return Demonstrations.fromScripted(this, team, problem, style, settings.turns(), rng);
    }

    @Override
    protected TextPolicy oracle(List<SearchItem> items, boolean wrong) {
        return new SearchOracle(items, wrong);
    }
}

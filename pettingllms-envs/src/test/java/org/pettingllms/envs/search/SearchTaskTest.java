package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.Items;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.TaskContract;

/**
 * {@code search-v1} on generated worlds: the oracle team and the oracle alone score all, the wrong ones nothing;
 * rewards as documented (the searcher's sum to its recall, a repeat earns nothing, format penalties); the answerer
 * sees passages but never queries; the task contract for the team and the single agent.
 */
class SearchTaskTest {
    static final List<String> TEAM = List.of(SearchTask.SEARCHER, SearchTask.ANSWERER);
    static final List<String> ALONE = List.of(SearchTask.ANSWERER);

    static SearchTask task(List<String> roles) {
        var items = new Items.Generated<>(SearchWorlds.NAME, SearchWorlds::item);
        var options = SearchTasks.SearchOptions.DEFAULT;
        return new SearchTask(roles, 3, items, SearchTasks.retrievers(options, items), 3);
    }

    static List<SearchItem> items(SearchTask t, List<Problem> problems) {
        return problems.stream().map(p -> t.initialState(p).item()).toList();
    }

    @Tag("heavy")
    @Test
    void theOracleSolvesEveryQuestionAndTheWrongOneNone() {
        for (List<String> roles : List.of(TEAM, ALONE)) {
            SearchTask t = task(roles);
            List<Problem> ps = t.problems(1).problems(Split.TEST, 0, 200); // worlds repeat questions: 200 meet some
            List<SearchItem> items = items(t, ps);
            for (PromptStyle style : List.of(PromptStyle.COMPACT, PromptStyle.CHAT)) {
                assertThat(GreedyEvaluation.successRate(t, new SearchOracle(items, false), ps, style, 256))
                        .as(roles + " " + style)
                        .isEqualTo(1.0);
                assertThat(GreedyEvaluation.successRate(t, new SearchOracle(items, true), ps, style, 256))
                        .as(roles + " " + style)
                        .isEqualTo(0.0);
            }
        }
    }

    @Test
    void aBridgeEpisodeByHand() {
        SearchTask t = task(TEAM);
        Problem p = bridge(t);
        SearchState s = t.initialState(p);
        SearchItem item = s.item();
        String company = item.supporting().get(0);
        String founder = item.supporting().get(1);
        // turn 1: the company; the searcher is paid half (one of two supporting passages)
        Transition<SearchState> tr = t.step(s, SearchTask.SEARCHER, Completion.ofText(company));
        assertThat(tr.outcome()).isEqualTo(StepOutcome.OK);
        assertThat(tr.reward().local()).isCloseTo(0.5, offset(1e-12));
        s = tr.next();
        assertThat(s.evidence()).extracting(Passage::title).contains(company).hasSizeLessThanOrEqualTo(3);
        String answererSees =
                t.prompt(s, SearchTask.ANSWERER, 0, PromptStyle.COMPACT).text();
        assertThat(answererSees).contains("- " + company + ": ").doesNotContain("searched:");
        // the answerer asks for more: nothing paid, nothing ended; the searcher sees the request
        tr = t.step(s, SearchTask.ANSWERER, Completion.ofText("more: where " + founder + " was born"));
        assertThat(tr.done()).isFalse();
        assertThat(tr.reward().local()).isZero();
        s = tr.next();
        assertThat(t.prompt(s, SearchTask.SEARCHER, 1, PromptStyle.COMPACT).text())
                .contains("searched: " + company, "asks: where " + founder + " was born");
        // the same search again earns nothing
        assertThat(t.step(s, SearchTask.SEARCHER, Completion.ofText(company))
                        .reward()
                        .local())
                .isZero();
        // turn 2: the founder, the other half; recall is then 1
        tr = t.step(s, SearchTask.SEARCHER, Completion.ofText("<search>" + founder + " born</search>"));
        assertThat(tr.reward().local()).isCloseTo(0.5, offset(1e-12));
        s = tr.next();
        assertThat(s.recall()).isEqualTo(1.0);
        // a wrong answer ends the episode unpaid; the right one pays 1 to the answerer and the team
        Transition<SearchState> wrong =
                t.step(s, SearchTask.ANSWERER, Completion.ofText("<answer>" + company + "</answer>"));
        assertThat(wrong.done()).isTrue();
        assertThat(wrong.success()).isFalse();
        assertThat(wrong.reward().team()).isZero();
        Transition<SearchState> right = t.step(
                s,
                SearchTask.ANSWERER,
                Completion.ofText("<think>the founder...</think><answer>the "
                        + item.answers().get(0).toLowerCase() + ".</answer>"));
        assertThat(right.done()).isTrue();
        assertThat(right.success()).isTrue();
        assertThat(right.reward().local()).isEqualTo(1.0);
        assertThat(right.reward().team()).isEqualTo(1.0);
        assertThat(right.outcome()).isEqualTo(StepOutcome.SOLVED);
    }

    @Test
    void anAnswerWhileEvidenceIsMissingIsAGuessThatEarnsNoMoreThanAsking() {
        for (List<String> roles : List.of(TEAM, ALONE)) {
            SearchTask t = task(roles);
            SearchState s = t.initialState(bridge(t));
            String company = s.item().supporting().get(0);
            String gold = s.item().answers().get(0);
            String searcher = roles.size() == 1 ? SearchTask.ANSWERER : SearchTask.SEARCHER;
            s = t.step(s, searcher, Completion.ofText(roles.size() == 1 ? "search: " + company : company))
                    .next();
            assertThat(s.evidenceMissing()).isTrue();
            // the founder's passage is unfound and turns remain: a right answer is a lucky guess
            Transition<SearchState> right = t.step(s, SearchTask.ANSWERER, Completion.ofText(gold));
            assertThat(right.success()).as(roles.toString()).isTrue();
            assertThat(right.reward().team()).isEqualTo(1.0);
            assertThat(right.reward().local()).isEqualTo(-1.0);
            assertThat(right.summary()).startsWith("right guess");
            Transition<SearchState> wrong = t.step(s, SearchTask.ANSWERER, Completion.ofText(company));
            assertThat(wrong.reward().local() + wrong.reward().team()).isEqualTo(-1.0);
            // asking earns 0: never less than a guess, right or wrong
            if (roles.size() == 2) {
                Transition<SearchState> ask = t.step(s, SearchTask.ANSWERER, Completion.ofText("more"));
                assertThat(ask.reward().local() + ask.reward().team())
                        .isGreaterThanOrEqualTo(
                                right.reward().local() + right.reward().team());
            }
            // at the last reply nothing follows: an answer is paid as an answer
            SearchState last = s;
            while (last.replies() + 1 < t.maxTurns()) {
                last = t.step(last, SearchTask.ANSWERER, Completion.ofText("")).next(); // unparseable: still a reply
            }
            Transition<SearchState> lastRight = t.step(last, SearchTask.ANSWERER, Completion.ofText(gold));
            assertThat(lastRight.reward().local()).as(roles.toString()).isEqualTo(1.0);
        }
    }

    @Test
    void formatPenaltiesAreValues() {
        SearchTask t = task(TEAM);
        SearchState s = t.initialState(bridge(t));
        for (String bad : List.of("", "   ", "<answer>x</answer>", "<more>x</more>", "</search>")) {
            Transition<SearchState> tr = t.step(s, SearchTask.SEARCHER, Completion.ofText(bad));
            assertThat(tr.outcome()).as(bad).isEqualTo(StepOutcome.UNPARSEABLE);
            assertThat(tr.reward().local()).isEqualTo(-1.0);
            assertThat(tr.next()).isEqualTo(s);
        }
        for (String bad : List.of("", "<answer></answer>", "<information>x</information>")) {
            Transition<SearchState> tr = t.step(s, SearchTask.ANSWERER, Completion.ofText(bad));
            assertThat(tr.outcome()).as(bad).isEqualTo(StepOutcome.UNPARSEABLE);
            assertThat(tr.reward().local()).isEqualTo(-1.0);
            assertThat(tr.done()).isFalse();
            assertThat(tr.next().replies()).isEqualTo(1); // the turn was spent all the same
        }
        // a query with no words finds nothing and is paid nothing, not penalised: the model sees that
        Transition<SearchState> none = t.step(s, SearchTask.SEARCHER, Completion.ofText("*** ???"));
        assertThat(none.outcome()).isEqualTo(StepOutcome.OK);
        assertThat(none.summary()).isEqualTo("no results");
        assertThat(none.reward().local()).isZero();
        assertThat(t.prompt(none.next(), SearchTask.SEARCHER, 1, PromptStyle.CHAT)
                        .text())
                .contains("1. *** ???");
    }

    @Test
    void theAnswererAloneSearchesAndAnswersWithTheTeamsCalls() {
        SearchTask t = task(ALONE);
        assertThat(t.maxTurns()).isEqualTo(SearchTask.CALLS_PER_TURN * 3);
        SearchState s = t.initialState(bridge(t));
        String company = s.item().supporting().get(0);
        Transition<SearchState> tr = t.step(s, SearchTask.ANSWERER, Completion.ofText("search: " + company));
        assertThat(tr.reward().local()).isCloseTo(0.5, offset(1e-12));
        assertThat(tr.done()).isFalse();
        String sees =
                t.prompt(tr.next(), SearchTask.ANSWERER, 1, PromptStyle.COMPACT).text();
        assertThat(sees).contains("searched: " + company, "- " + company + ": ", "(calls left 5)");
        assertThat(t.prompt(tr.next(), SearchTask.ANSWERER, 5, PromptStyle.CHAT).text())
                .contains("This is your last reply");
        assertThat(t.step(tr.next(), SearchTask.ANSWERER, Completion.ofText("Ashford"))
                        .done())
                .isTrue();
    }

    @Test
    void demonstrationsAreImperfectAndInTheReplyFormat() {
        SearchTask t = task(TEAM);
        var settings = new Demonstrations.Settings(0.5, 0, false, 3, 0);
        int repeats = 0;
        int laterSearches = 0;
        for (int i = 0; i < 60; i++) {
            Problem p = t.problems(1).problems(Split.TRAIN, i, 1).get(0);
            SearchItem item = t.initialState(p).item();
            List<String> queries = new ArrayList<>();
            for (Demonstrations.Demo d : t.demonstrations(p, PromptStyle.COMPACT, settings, new SplittableRandom(i))) {
                if (d.role().equals(SearchTask.SEARCHER)) {
                    // a query is a name to copy, never the question as worded
                    assertThat(item.supporting()).contains(d.answer());
                    if (!queries.isEmpty()) {
                        laterSearches++;
                        repeats += queries.contains(d.answer()) ? 1 : 0;
                    }
                    queries.add(d.answer());
                }
            }
        }
        // the imperfect searcher searches the first hop again where the second is missing
        assertThat(laterSearches).isGreaterThan(10);
        assertThat((double) repeats / laterSearches).isBetween(0.3, 0.7);
    }

    @Tag("heavy")
    @Test
    void theSearchHabitRepeatsTheFirstHopInItsShareOfEpisodesForBothLineUps() {
        for (List<String> roles : List.of(TEAM, ALONE)) {
            SearchTask t = task(roles);
            String searcher = roles.size() == 1 ? SearchTask.ANSWERER : SearchTask.SEARCHER;
            int episodes = 0;
            int withHabit = 0;
            for (int i = 0; i < 200; i++) {
                Problem p = t.problems(1).problems(Split.TRAIN, i, 1).get(0);
                SearchItem item = t.initialState(p).item();
                String first = item.supporting().get(0);
                List<Demonstrations.Demo> demos = t.demonstrations(
                        p,
                        PromptStyle.COMPACT,
                        new Demonstrations.Settings(0, 0, false, 3, 0.5),
                        new SplittableRandom(i));
                List<String> queries = new ArrayList<>();
                List<String> answers = new ArrayList<>();
                for (Demonstrations.Demo d : demos) {
                    Replies r = Replies.parse(d.answer(), searcher, roles.size() == 1);
                    if (d.role().equals(searcher) && r.kind() == Replies.Kind.SEARCH) {
                        queries.add(r.text());
                    } else {
                        answers.add(d.answer());
                    }
                }
                assertThat(queries.get(0)).as(roles + " " + queries).isEqualTo(first);
                if (queries.size() < 2) {
                    continue; // the first search found every supporting passage
                }
                episodes++;
                List<String> later = queries.subList(1, queries.size());
                boolean habit = later.stream().allMatch(first::equals);
                // an episode has the habit on every later search or on none
                assertThat(habit || later.stream().noneMatch(first::equals))
                        .as(roles + " " + queries)
                        .isTrue();
                withHabit += habit ? 1 : 0;
                // at noise 0 the team's answerer never guesses: it asks until the evidence is in or the last turn
                if (roles.size() == 2) {
                    assertThat(answers.subList(0, answers.size() - 1)).allMatch("more"::equals);
                }
            }
            assertThat(episodes).as(roles.toString()).isGreaterThan(100);
            assertThat((double) withHabit / episodes).as(roles.toString()).isBetween(0.35, 0.65);
        }
    }

    static Problem bridge(SearchTask t) {
        for (Problem p : t.problems(1).problems(Split.TRAIN, 0, 20)) {
            if (t.initialState(p).item().type().equals(SearchWorlds.BRIDGE)) {
                return p;
            }
        }
        throw new AssertionError("no bridge question in 20");
    }

    abstract class WorldsContract extends TaskContract<SearchState> {
        abstract List<String> roles();

        @Override
        protected SearchTask task() {
            return SearchTaskTest.task(roles());
        }

        @Override
        protected List<Problem> problems() {
            return task().problems(3).problems(Split.TEST, 0, 4);
        }

        @Override
        protected TextPolicy policy() {
            List<SearchItem> items = items(task(), problems());
            return halfRight(new SearchOracle(items, false), new SearchOracle(items, true));
        }
    }

    @Nested
    class TeamContract extends WorldsContract {
        @Override
        List<String> roles() {
            return TEAM;
        }
    }

    @Nested
    class SingleAgentContract extends WorldsContract {
        @Override
        List<String> roles() {
            return ALONE;
        }
    }
}

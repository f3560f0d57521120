package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.envs.data.DatasetException;
import org.pettingllms.envs.data.Items;
import org.pettingllms.testkit.GreedyEvaluation;
import org.pettingllms.testkit.SharedFiles;

/** HotpotQA's distractor layout (the 100 shared questions) and Search-R1 / FlashRAG question files load. */
class SearchRowsTest {
    static final Path HOTPOT = SharedFiles.shared().resolve("datasets/search/hotpotqa_distractor_100.jsonl");

    @TempDir
    Path dir;

    @Test
    void theHundredHotpotQaQuestionsLoadWithTheirParagraphs() {
        List<SearchItem> items = SearchRows.load(HOTPOT);
        assertThat(items).hasSize(100);
        assertThat(items.stream().filter(i -> i.type().equals("bridge"))).hasSize(85);
        assertThat(items.stream().filter(i -> i.type().equals("comparison"))).hasSize(15);
        for (SearchItem i : items) {
            assertThat(i.passages()).hasSizeBetween(2, 10);
            Set<String> titles = i.passages().stream().map(Passage::title).collect(Collectors.toSet());
            assertThat(titles).as(i.id()).containsAll(i.supporting());
            assertThat(i.supporting()).hasSizeBetween(2, 4);
        }
        SearchItem first = items.get(0);
        assertThat(first.id()).isEqualTo("5a7613c15542994ccc9186bf");
        assertThat(first.answers()).containsExactly("Gesellschaft mit beschränkter Haftung");
        assertThat(first.supporting()).containsExactly("VIVA Media", "Gesellschaft mit beschränkter Haftung");
        Passage viva = first.passages().stream()
                .filter(p -> p.title().equals("VIVA Poland"))
                .findFirst()
                .orElseThrow();
        assertThat(viva.text()).startsWith("VIVA Polska (earlier \"VIVApolska!\") is a Polish 24h music");
    }

    /**
     * The oracle (it searches the supporting titles) on the real questions' closed corpora and pooled: BM25 finds
     * what the titles name, so the oracle team answers every question when retrieval works.
     */
    @Test
    void theOracleAnswersTheRealQuestionsOverTheirParagraphsAndPooled() {
        for (String corpus : List.of("", "pooled")) {
            Items<SearchItem> items = new Items.Listed<>(List.of(), SearchRows.load(HOTPOT), SearchItem.class);
            var o = new SearchTasks.SearchOptions("", "", "x", corpus, "runs/search-index", 5, 30);
            SearchTask t = new SearchTask(SearchTaskTest.TEAM, 4, items, SearchTasks.retrievers(o, items), 5);
            List<Problem> ps = t.problems(1).problems(Split.TEST, 0, 100);
            List<SearchItem> rows = SearchTaskTest.items(t, ps);
            double rate = GreedyEvaluation.successRate(t, new SearchOracle(rows, false), ps, PromptStyle.CHAT, 256);
            assertThat(rate).as(corpus).isEqualTo(1.0);
        }
    }

    @Test
    void searchR1AndFlashRagQuestionFilesLoad() throws Exception {
        Path f = dir.resolve("nq.jsonl");
        Files.writeString(
                f,
                "{\"id\": \"test_0\", \"question\": \"who wrote hamlet\", \"golden_answers\":"
                        + " [\"Shakespeare\", \"William Shakespeare\"]}\n{\"question\": \"2+2\", \"answer\": 4}\n");
        List<SearchItem> items = SearchRows.load(f);
        assertThat(items.get(0))
                .isEqualTo(new SearchItem(
                        "test_0",
                        "who wrote hamlet",
                        List.of("Shakespeare", "William Shakespeare"),
                        List.of(),
                        "",
                        List.of()));
        assertThat(items.get(1).answers()).containsExactly("4");
        assertThat(items.get(1).id()).isEqualTo("row-2");
    }

    @Test
    void badRowsAreOneErrorNamingLineAndField() throws Exception {
        Path f = dir.resolve("bad.jsonl");
        Files.writeString(f, "{\"question\": \"q\", \"golden_answers\": []}\n");
        assertThatThrownBy(() -> SearchRows.load(f))
                .isInstanceOf(DatasetException.class)
                .hasMessageContaining("bad.jsonl line 1: field 'golden_answers' has no answer");
        Files.writeString(f, "{\"question\": \"q\", \"answer\": \"a\", \"context\": {\"title\": [\"A\"]}}\n");
        assertThatThrownBy(() -> SearchRows.load(f)).hasMessageContaining("field 'context' has no list 'sentences'");
        Files.writeString(f, "{\"question\": \"q\"}\n");
        assertThatThrownBy(() -> SearchRows.load(f)).hasMessageContaining("missing field golden_answers | answers");
    }
}

package org.pettingllms.envs.search;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.envs.data.Items;

/** Generated worlds: deterministic, the facts a question needs are there once, splits share no name. */
class SearchWorldsTest {
    static List<SearchItem> items(Split split, int n) {
        var src = new Items.Generated<>(SearchWorlds.NAME, SearchWorlds::item).problems("search-v1", 1);
        return src.problems(split, 0, n).stream()
                .map(p -> SearchWorlds.item(p.seed()))
                .toList();
    }

    @Test
    void aSeedMakesOneWorld() {
        long seed = SeededProblems.generatorSeed("search-v1", Split.TEST, 1, 3);
        assertThat(SearchWorlds.item(seed)).isEqualTo(SearchWorlds.item(seed));
        assertThat(SearchWorlds.item(seed)).isNotEqualTo(SearchWorlds.item(seed + 1));
    }

    @Test
    void everyQuestionHasItsEvidenceAndOneAnswer() {
        int bridges = 0;
        for (SearchItem item : items(Split.TRAIN, 300)) {
            assertThat(item.passages()).hasSize(8);
            Set<String> titles = new HashSet<>();
            item.passages()
                    .forEach(
                            p -> assertThat(titles.add(p.title())).as(item.id()).isTrue());
            assertThat(titles).containsAll(item.supporting());
            String answer = item.answers().get(0);
            if (item.type().equals(SearchWorlds.BRIDGE)) {
                bridges++;
                Passage company = passage(item, item.supporting().get(0));
                Passage founder = passage(item, item.supporting().get(1));
                assertThat(company.text()).contains(founder.title());
                // the founder's passage does not name the company: a second search is needed
                assertThat(founder.text()).doesNotContain(company.title());
                assertThat(founder.text()).contains(answer);
                assertThat(company.text()).doesNotContain(answer);
                // the answer city is in one passage only
                assertThat(item.passages().stream().filter(p -> p.text().contains(answer)))
                        .hasSize(1);
            } else {
                assertThat(item.supporting()).contains(answer);
                assertThat(item.question())
                        .contains(item.supporting().get(0), item.supporting().get(1));
            }
        }
        assertThat(bridges).isBetween(150, 210); // 60%
    }

    @Test
    void noHeldOutNameOccursInATrainingWorld() {
        Map<String, Split> names = SearchWorlds.allNames();
        Set<String> trainText = new HashSet<>();
        for (SearchItem item : items(Split.TRAIN, 500)) {
            item.passages().forEach(p -> trainText.add(p.title() + " " + p.text()));
        }
        String all = String.join("\n", trainText);
        for (Split held : List.of(Split.VALIDATION, Split.TEST)) {
            for (SearchItem item : items(held, 200)) {
                for (String name : names.keySet()) {
                    if (names.get(name) == held && item.question().contains(name)) {
                        assertThat(all).as(name).doesNotContain(name);
                    }
                }
                assertThat(all).doesNotContain(item.answers().get(0));
            }
        }
        for (String name : SearchWorlds.names(Split.TEST)) {
            assertThat(SearchWorlds.names(Split.TRAIN)).doesNotContain(name);
            assertThat(SearchWorlds.names(Split.VALIDATION)).doesNotContain(name);
        }
    }

    @Test
    void theQuestionAsWordedFindsTheFirstHopButRarelyTheSecond() {
        int first = 0;
        int second = 0;
        int bridges = 0;
        for (SearchItem item : items(Split.TRAIN, 200)) {
            if (!item.type().equals(SearchWorlds.BRIDGE)) {
                continue;
            }
            bridges++;
            try (Bm25Index index = Bm25Index.of(item.passages())) {
                List<String> top = index.search(item.question(), 3).stream()
                        .map(h -> h.passage().title())
                        .toList();
                first += top.contains(item.supporting().get(0)) ? 1 : 0;
                second += top.contains(item.supporting().get(1)) ? 1 : 0;
                // the founder's name, which only the first hop shows, finds the second
                String founder = item.supporting().get(1);
                assertThat(index.search(founder + " born", 3).stream()
                                .map(h -> h.passage().title()))
                        .contains(founder);
            }
        }
        assertThat(first).isEqualTo(bridges);
        assertThat((double) second / bridges).isLessThan(0.5);
    }

    private static Passage passage(SearchItem item, String title) {
        return item.passages().stream()
                .filter(p -> p.title().equals(title))
                .findFirst()
                .orElseThrow();
    }

    static Problem problem(Split split, int i) {
        return new Items.Generated<>(SearchWorlds.NAME, SearchWorlds::item)
                .problems("search-v1", 1)
                .problems(split, i, 1)
                .get(0);
    }
}

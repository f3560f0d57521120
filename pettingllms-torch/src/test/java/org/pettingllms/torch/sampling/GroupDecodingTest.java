package org.pettingllms.torch.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;

/**
 * Candidates that share a prompt decode in one cache row (the group layout) and compute what rows of their own
 * compute: the same tokens for the same seeds and logprobs within 1e-5, through left padding, per-group adapters
 * and sampling settings, rows finishing at different steps, and the move back to rows of their own.
 */
class GroupDecodingTest {
    static DecoderModel model;
    static LoraAdapter adapter;

    @BeforeAll
    static void load() throws Exception {
        model = DecoderModel.load(SharedFiles.fixture("qwen3-tiny"), Device.cpu());
        adapter = LoraAdapter.load(
                "golden", model, SharedFiles.fixture("qwen3-tiny").resolve("adapter"));
    }

    @AfterAll
    static void close() {
        adapter.close();
        model.close();
    }

    static int[] prompt(int length, int salt) {
        int[] p = new int[length];
        p[0] = 1;
        for (int i = 1; i < length; i++) {
            p[i] = 3 + (i * 37 + salt * 11) % 90;
        }
        return p;
    }

    /** K candidates of each prompt, with the given max tokens per candidate (the same list for every prompt). */
    static List<Generator.Request> groups(List<int[]> prompts, int[] maxTokens) {
        List<Generator.Request> reqs = new ArrayList<>();
        for (int g = 0; g < prompts.size(); g++) {
            for (int j = 0; j < maxTokens.length; j++) {
                LoraAdapter a = g % 2 == 0 ? adapter : null;
                double temperature = j % 2 == 0 ? 1.0 : 0.7;
                int topK = j == 3 ? 20 : 0;
                reqs.add(new Generator.Request(
                        prompts.get(g), a, temperature, topK, 1.0, maxTokens[j], new int[0], null, 1000L * g + j));
            }
        }
        return reqs;
    }

    static void assertSameAsRowsAlone(List<Generator.Request> reqs) {
        int[] source = new int[reqs.size()];
        int groups = Generator.sharedPrompts(reqs, source).length;
        int largest = GroupDecoding.largest(source, groups);
        assertThat(GroupDecoding.suits(groups, largest, reqs.size()))
                .as("the requests decode in the group layout")
                .isTrue();
        List<Generator.Result> grouped = Generator.generate(model, reqs, true);
        List<Generator.Result> alone = Generator.generate(model, reqs, false);
        for (int i = 0; i < reqs.size(); i++) {
            assertThat(grouped.get(i).tokens())
                    .as("row %d tokens", i)
                    .containsExactly(alone.get(i).tokens());
            assertThat(grouped.get(i).finish()).isEqualTo(alone.get(i).finish());
            for (int t = 0; t < alone.get(i).logprobs().length; t++) {
                assertThat(grouped.get(i).logprobs()[t])
                        .as("row %d token %d", i, t)
                        .isCloseTo(alone.get(i).logprobs()[t], within(1e-5f));
            }
        }
        assertThat(grouped.get(0).tokens()).isNotEqualTo(grouped.get(1).tokens()); // seeds still differ per row
    }

    @Test
    void aLongSharedPromptStaysInTheGroupLayoutToTheEnd() {
        // 40 prompt keys, K = 4: a query's group keys (40 + 4 s) stay within twice a row's (40 + s) for 12 steps
        assertSameAsRowsAlone(groups(List.of(prompt(40, 1), prompt(33, 2)), new int[] {12, 12, 12, 12}));
    }

    @Test
    void aShortPromptMovesToRowsOfTheirOwnWhenTheMaskedKeysOutgrowIt() {
        // 7 prompt keys, K = 4: after 3 steps a query meets more masked keys than the prompt saves
        assertSameAsRowsAlone(groups(List.of(prompt(7, 3), prompt(5, 4)), new int[] {12, 12, 12, 12}));
    }

    @Test
    void rowsFinishingEarlyFreeTheirSlotsThenTheLayoutEnds() {
        // in each group two candidates stop after 2 and 3 tokens: half the slots run, below three quarters
        assertSameAsRowsAlone(groups(List.of(prompt(40, 5), prompt(36, 6), prompt(30, 7)), new int[] {2, 10, 3, 10}));
    }

    @Test
    void aGroupWhoseRowsAllFinishedLeavesTheCache() {
        // the second prompt's candidates all stop after 2 tokens; the others run on in the group layout
        List<Generator.Request> reqs = new ArrayList<>(groups(List.of(prompt(40, 8)), new int[] {10, 10, 10, 10}));
        reqs.addAll(groups(List.of(prompt(38, 9)), new int[] {2, 2, 2, 2}).stream()
                .map(r -> new Generator.Request(
                        r.prompt(),
                        null,
                        r.temperature(),
                        r.topK(),
                        r.topP(),
                        r.maxTokens(),
                        r.stopTokens(),
                        null,
                        r.seed() + 7))
                .toList());
        reqs.addAll(groups(List.of(prompt(35, 10)), new int[] {10, 10, 10, 10}).stream()
                .map(r -> new Generator.Request(
                        r.prompt(),
                        r.adapter(),
                        r.temperature(),
                        r.topK(),
                        r.topP(),
                        r.maxTokens(),
                        r.stopTokens(),
                        null,
                        r.seed() + 13))
                .toList());
        assertSameAsRowsAlone(reqs);
    }

    @Test
    void theLayoutIsUsedWhenGroupsAreAboutEqual() {
        assertThat(GroupDecoding.suits(8, 4, 32)).isTrue(); // tree groups of K = 4
        assertThat(GroupDecoding.suits(3, 4, 10)).isTrue(); // 12 slots for 10 rows
        assertThat(GroupDecoding.suits(3, 4, 7)).isFalse(); // 12 slots for 7 rows
        assertThat(GroupDecoding.suits(5, 1, 5)).isFalse(); // nothing shared
    }

    @Test
    void theGroupCacheHoldsThePromptAndKPerStepForAsLongAsTheLayoutLasts() {
        assertThat(GroupDecoding.capacity(150, 4, 24)).isEqualTo(150 + 4 * 24);
        // K = 8: the layout lasts while 150 + 8 s <= 2 (150 + s), s <= 25
        assertThat(GroupDecoding.capacity(150, 8, 500)).isEqualTo(150 + 8 * 26);
        assertThat(GroupDecoding.capacity(10, 2, 500)).isEqualTo(10 + 2 * 500); // K = 2 never outgrows the prompt
    }
}

package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.sampling.Generator;
import org.pettingllms.torch.train.SequenceBatch;

/** Padding, batching, per-row adapters and seeds never change what a row computes. */
@org.junit.jupiter.api.Tag("engine")
class BatchingTest {
    static DecoderModel model;
    static LoraAdapter adapter;

    @BeforeAll
    static void load() throws Exception {
        model = TestEngine.load(SharedFiles.fixture("qwen3-tiny"));
        adapter = LoraAdapter.load(
                "golden", model, SharedFiles.fixture("qwen3-tiny").resolve("adapter"));
    }

    @AfterAll
    static void close() {
        adapter.close();
        model.close();
    }

    static Generator.Request sampled(int[] prompt, LoraAdapter a, long seed) {
        return new Generator.Request(prompt, a, 1.0, 0, 1.0, 12, new int[0], null, seed);
    }

    static final List<int[]> PROMPTS =
            List.of(new int[] {1, 17, 42, 5, 88, 23, 60}, new int[] {1, 64}, new int[] {1, 9, 77, 31, 12});

    @Test
    void batchedPaddedGenerationEqualsEachSequenceAlone() {
        List<Generator.Request> reqs = new ArrayList<>();
        for (int i = 0; i < PROMPTS.size(); i++) {
            reqs.add(sampled(PROMPTS.get(i), i == 1 ? adapter : null, 100 + i));
        }
        List<Generator.Result> batched = Generator.generate(model, reqs);
        for (int i = 0; i < reqs.size(); i++) {
            Generator.Result alone =
                    Generator.generate(model, List.of(reqs.get(i))).get(0);
            assertThat(batched.get(i).tokens()).as("row %d tokens", i).containsExactly(alone.tokens());
            for (int t = 0; t < alone.logprobs().length; t++) {
                assertThat(batched.get(i).logprobs()[t]).isCloseTo(alone.logprobs()[t], within(1e-4f));
            }
        }
    }

    @Test
    void rowsSharingAPromptArePrefilledOnceAndGiveWhatUnsharedRowsGive() {
        // a tree group (K = 4 of one prompt and adapter), the same prompt under another adapter, another prompt
        List<Generator.Request> reqs = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            reqs.add(sampled(PROMPTS.get(0), adapter, 300 + k));
        }
        reqs.add(sampled(PROMPTS.get(0), null, 310));
        reqs.add(sampled(PROMPTS.get(2), adapter, 311));
        reqs.add(sampled(PROMPTS.get(2), adapter, 312));
        int[] source = new int[reqs.size()];
        assertThat(Generator.sharedPrompts(reqs, source)).containsExactly(0, 4, 5);
        assertThat(source).containsExactly(0, 0, 0, 0, 1, 2, 2);
        List<Generator.Result> shared = Generator.generate(model, reqs, true);
        List<Generator.Result> unshared = Generator.generate(model, reqs, false);
        for (int i = 0; i < reqs.size(); i++) {
            assertThat(shared.get(i).tokens())
                    .as("row %d tokens", i)
                    .containsExactly(unshared.get(i).tokens());
            for (int t = 0; t < shared.get(i).logprobs().length; t++) {
                assertThat(shared.get(i).logprobs()[t])
                        .as("row %d token %d", i, t)
                        .isCloseTo(unshared.get(i).logprobs()[t], within(1e-5f));
            }
        }
        assertThat(shared.get(0).tokens()).isNotEqualTo(shared.get(1).tokens()); // seeds still differ per row
    }

    @Test
    void sameSeedSameOutputDifferentSeedDifferentOutput() {
        int[] p = PROMPTS.get(0);
        var a = Generator.generate(model, List.of(sampled(p, null, 7), sampled(p, null, 7), sampled(p, null, 8)));
        assertThat(a.get(0).tokens()).containsExactly(a.get(1).tokens());
        assertThat(a.get(0).tokens()).isNotEqualTo(a.get(2).tokens());
    }

    @Test
    void samplingLogprobsEqualTheTrainersRecomputation() {
        // a mismatch here silently breaks PPO: the ratio would not start at 1
        List<Generator.Request> reqs = List.of(
                sampled(PROMPTS.get(0), adapter, 1),
                sampled(PROMPTS.get(1), adapter, 2),
                sampled(PROMPTS.get(2), adapter, 3));
        List<Generator.Result> res = Generator.generate(model, reqs);
        List<int[]> completions = res.stream().map(Generator.Result::tokens).toList();
        SequenceBatch batch = new SequenceBatch(PROMPTS, completions);
        try (NDManager scope = model.manager().newSubManager()) {
            SequenceBatch.Logprobs lp = batch.logprobs(model, scope, LoraRows.all(adapter, 3));
            float[] got = lp.logprobs().toFloatArray();
            float[] mask = lp.mask().toFloatArray();
            int w = lp.columns();
            for (int r = 0; r < 3; r++) {
                float[] expected = res.get(r).logprobs();
                int start = w - expected.length;
                for (int t = 0; t < expected.length; t++) {
                    assertThat(mask[r * w + start + t]).isEqualTo(1f);
                    assertThat(got[r * w + start + t])
                            .as("row %d token %d", r, t)
                            .isCloseTo(expected[t], within(1e-4f));
                }
                for (int t = 0; t < start; t++) {
                    assertThat(mask[r * w + t]).isZero();
                }
            }
        }
    }

    @Test
    void stopTokensEndARowAndAreKept() {
        var free = Generator.generate(model, List.of(sampled(PROMPTS.get(0), null, 5)))
                .get(0);
        int stop = free.tokens()[3];
        var r = Generator.generate(
                        model,
                        List.of(new Generator.Request(
                                PROMPTS.get(0), null, 1.0, 0, 1.0, 12, new int[] {stop}, null, 5)))
                .get(0);
        int first = 0;
        while (free.tokens()[first] != stop) {
            first++;
        }
        assertThat(r.tokens()).hasSize(first + 1).endsWith(stop);
        assertThat(r.finish()).isEqualTo(FinishReason.EOS);
        assertThat(free.finish()).isEqualTo(FinishReason.LENGTH);
    }

    @Test
    void rowsThatFinishEarlyLeaveTheBatchWithoutDisturbingTheOthers() {
        // row i stops after 2 + 3i tokens (a stop check), so rows leave the batch at different steps
        List<Generator.Request> reqs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int stopAt = 2 + 3 * i;
            reqs.add(new Generator.Request(
                    PROMPTS.get(i),
                    i == 2 ? adapter : null,
                    1.0,
                    0,
                    1.0,
                    12,
                    new int[0],
                    t -> t.length >= stopAt,
                    40 + i));
        }
        List<Generator.Result> batched = Generator.generate(model, reqs);
        for (int i = 0; i < 3; i++) {
            Generator.Result alone =
                    Generator.generate(model, List.of(reqs.get(i))).get(0);
            assertThat(batched.get(i).tokens())
                    .as("row %d", i)
                    .hasSize(2 + 3 * i)
                    .containsExactly(alone.tokens());
            for (int t = 0; t < alone.logprobs().length; t++) {
                assertThat(batched.get(i).logprobs()[t]).isCloseTo(alone.logprobs()[t], within(1e-4f));
            }
            assertThat(batched.get(i).finish()).isEqualTo(FinishReason.STOP_STRING);
        }
    }
}

package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * Training rows that share a prompt run it forward and backward once: log-probabilities, entropies and gradients
 * (LoRA and full weights, on the golden fixture's model) equal the computation where every row runs its own prompt.
 */
class SharedPromptTrainingTest {
    static DecoderModel model;
    static LoraAdapter adapter;

    // a tree group of three candidates of different lengths, a pair, and a row alone
    static final int[] P0 = {1, 17, 42, 5, 88, 23, 60};
    static final int[] P1 = {1, 64, 3};
    static final int[] P2 = {1, 9, 77, 31, 12};
    static final List<int[]> PROMPTS = List.of(P0, P0, P0, P1, P1, P2);
    static final List<int[]> COMPLETIONS = List.of(
            new int[] {7, 8, 9, 10},
            new int[] {11},
            new int[] {12, 13},
            new int[] {14, 15, 16, 17, 18},
            new int[] {19, 20},
            new int[] {21, 22, 23});
    static final float[] WEIGHTS = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f}; // advantages, some negative

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

    @Test
    void sharedLogprobsAndEntropiesEqualUnshared() {
        SequenceBatch sb = new SequenceBatch(PROMPTS, COMPLETIONS);
        try (NDManager scope = model.manager().newSubManager()) {
            SequenceBatch.Logprobs shared = sb.logprobs(model, scope, adapter, true, true);
            SequenceBatch.Logprobs unshared = sb.logprobs(model, scope, adapter, true, false);
            assertThat(shared.columns()).isEqualTo(5); // the longest completion, not prompt + completion
            float[] a = shared.logprobs().toFloatArray();
            float[] b = unshared.logprobs().toFloatArray();
            float[] ea = shared.entropy().toFloatArray();
            float[] eb = unshared.entropy().toFloatArray();
            float[] ma = shared.mask().toFloatArray();
            for (int r = 0; r < PROMPTS.size(); r++) {
                int len = COMPLETIONS.get(r).length;
                float[] ra = shared.row(a, r, len);
                float[] rb = unshared.row(b, r, len);
                float[] rea = shared.row(ea, r, len);
                float[] reb = unshared.row(eb, r, len);
                for (int t = 0; t < len; t++) {
                    assertThat(ra[t]).as("row %d token %d", r, t).isCloseTo(rb[t], within(1e-5f));
                    assertThat(rea[t]).as("entropy row %d token %d", r, t).isCloseTo(reb[t], within(1e-5f));
                }
                float maskSum = 0;
                for (int c = 0; c < shared.columns(); c++) {
                    maskSum += ma[r * shared.columns() + c];
                }
                assertThat(maskSum).isEqualTo(len);
            }
        }
    }

    @Test
    void loraGradientsEqualUnshared() {
        Map<String, NDArray> params = adapter.parameters();
        Map<String, float[]> shared = gradients(params, adapter, true);
        Map<String, float[]> unshared = gradients(params, adapter, false);
        assertClose(shared, unshared);
    }

    @Test
    void fullWeightGradientsEqualUnshared() {
        Map<String, NDArray> params = model.parameters();
        try {
            Map<String, float[]> shared = gradients(params, null, true);
            Map<String, float[]> unshared = gradients(params, null, false);
            assertClose(shared, unshared);
        } finally {
            params.values().forEach(p -> p.setRequiresGradient(false));
        }
    }

    /** Gradients of sum_r w_r * sum_t logp(r, t): a policy-gradient loss with per-row advantages. */
    private static Map<String, float[]> gradients(Map<String, NDArray> params, LoraAdapter a, boolean share) {
        params.values().forEach(p -> p.setRequiresGradient(true));
        SequenceBatch sb = new SequenceBatch(PROMPTS, COMPLETIONS);
        try (NDManager scope = model.manager().newSubManager();
                GradientCollector gc = Torch.engine().newGradientCollector()) {
            SequenceBatch.Logprobs lp = sb.logprobs(model, scope, a, false, share);
            NDArray w = scope.create(WEIGHTS, new Shape(WEIGHTS.length, 1));
            gc.backward(lp.logprobs().mul(lp.mask()).mul(w).sum());
        }
        Map<String, float[]> out = new LinkedHashMap<>();
        params.forEach((k, p) -> {
            NDArray g = p.getGradient();
            out.put(k, g.toFloatArray());
            g.muli(0);
            g.close();
        });
        return out;
    }

    private static void assertClose(Map<String, float[]> shared, Map<String, float[]> unshared) {
        double maxRef = 0;
        for (Map.Entry<String, float[]> e : unshared.entrySet()) {
            float[] ref = e.getValue();
            float[] got = shared.get(e.getKey());
            double scale = 0;
            double diff = 0;
            for (int i = 0; i < ref.length; i++) {
                scale = Math.max(scale, Math.abs(ref[i]));
                diff = Math.max(diff, Math.abs(got[i] - ref[i]));
            }
            maxRef = Math.max(maxRef, scale);
            assertThat(diff)
                    .as("max gradient difference of %s (scale %s)", e.getKey(), scale)
                    .isLessThanOrEqualTo(1e-4 * Math.max(scale, 1e-3));
        }
        assertThat(maxRef).as("the gradients are not trivial").isGreaterThan(1e-3);
    }
}

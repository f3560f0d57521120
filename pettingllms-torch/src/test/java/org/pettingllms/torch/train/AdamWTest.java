package org.pettingllms.torch.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.Torch;

/**
 * AdamW against numbers computed by hand (in double, from the formula in AdamW's javadoc: decoupled decay, then
 * bias-corrected moments, {@code eps} added to {@code sqrt(v_hat)}): two steps on two weights, lr 0.1, betas 0.9 and
 * 0.999, eps 1e-8, weight decay 0.01. Step 1, weight 1 with gradient 0.5: {@code 1 x (1 - 0.001) = 0.999}, then
 * {@code m_hat = 0.5}, {@code sqrt(v_hat) = 0.5}, so {@code 0.999 - 0.1 x 0.5 / (0.5 + 1e-8) = 0.899}. Step 2 with
 * gradient -0.25: {@code m = 0.02, v = 3.1225e-4}, giving 0.8714673. The numbers for the second weight (-2, gradients
 * -1 and 2) came out of the same lines of Python.
 */
@Tag("engine")
class AdamWTest {
    static final OptimParams PARAMS = new OptimParams(0.1, 0.9, 0.999, 1e-8, 0.01, 1.0);

    @Test
    void twoStepsGiveTheHandComputedWeightsAndMoments() {
        try (NDManager nd = Torch.engine().newBaseManager(TestEngine.device())) {
            NDArray w = nd.create(new float[] {1f, -2f});
            Map<String, NDArray> params = new LinkedHashMap<>(Map.of("w", w));
            try (AdamW adam = new AdamW(nd, params)) {
                adam.update(Map.of("w", nd.create(new float[] {0.5f, -1f})), PARAMS);
                assertThat(w.toFloatArray()).containsExactly(new float[] {0.899f, -1.898f}, within(1e-6f));
                adam.update(Map.of("w", nd.create(new float[] {-0.25f, 2f})), PARAMS);
                assertThat(w.toFloatArray()).containsExactly(new float[] {0.8714673f, -1.9327124f}, within(1e-6f));
                assertThat(adam.state().get("w.exp_avg").toFloatArray())
                        .containsExactly(new float[] {0.02f, 0.11f}, within(1e-7f));
                // within 1.3e-5 relative: the native update takes beta2 as a float, and 1 - 0.999f is 0.00099998713
                assertThat(adam.state().get("w.exp_avg_sq").toFloatArray())
                        .containsExactly(new float[] {3.1225e-4f, 4.999e-3f}, within(7e-8f));
                assertThat(adam.step()).isEqualTo(2);
            }
        }
    }

    @Test
    void aBf16WeightFollowsItsFloat32MasterRounded() {
        assumeTrue(Torch.bf16Supported(), "bf16 needs a JNI library built with bfloat16 (scripts/gpu/run)");
        try (NDManager nd = Torch.engine().newBaseManager(TestEngine.device())) {
            NDArray w = nd.create(new float[] {1f, -2f}).toType(DataType.BFLOAT16, false);
            Map<String, NDArray> params = new LinkedHashMap<>(Map.of("w", w));
            try (AdamW adam = new AdamW(nd, params)) {
                // a step of 1e-4 is below bf16's resolution at 1 and 2 (2^-7 and 2^-6): the master keeps it
                OptimParams small = new OptimParams(1e-4, 0.9, 0.999, 1e-8, 0.0, 1.0);
                for (int i = 0; i < 50; i++) {
                    adam.update(Map.of("w", nd.create(new float[] {1f, -1f})), small);
                }
                float[] held = w.toType(DataType.FLOAT32, false).toFloatArray();
                // 50 steps of lr each (the moments of a constant gradient give m_hat / sqrt(v_hat) = 1): 1 - 0.005
                // rounds to bf16's 0.99609375; -2 + 0.005 rounds to -1.9921875 (steps of 2^-7 there)
                assertThat(held).containsExactly(0.99609375f, -1.9921875f);
            }
        }
    }
}

package org.pettingllms.torch.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.Torch;

/**
 * The multi-tensor calls of the project's JNI patch against the per-tensor path they replace. They exist only in a
 * JNI built with scripts/gpu/djl-fused.patch ({@code scripts/gpu/run}, on a GPU or with {@code --cpu}); with DJL's
 * prebuilt JNI (the Maven build) these tests are skipped and the per-tensor path is the one AdamWTest checks.
 */
@Tag("engine")
class FusedOpsTest {
    static final OptimParams PARAMS = new OptimParams(0.05, 0.9, 0.999, 1e-8, 0.01, 1.0);

    @Test
    void threeFusedStepsGiveThePerTensorWeightsAndMoments() {
        assumeTrue(FusedOps.available(), "needs a JNI built with scripts/gpu/djl-fused.patch");
        float[] scales = {1f, 0.37f, 1f};
        Map<String, float[]> fused = run(true, scales);
        Map<String, float[]> perTensor = run(false, scales);
        assertThat(fused.keySet()).isEqualTo(perTensor.keySet());
        // the same float32 operations in the same order: equal to the bit on a CPU; a GPU's multi-tensor kernels may
        // contract a multiply and an add into one rounding
        fused.forEach((k, v) -> assertThat(v).as(k).containsExactly(perTensor.get(k), within(2e-7f)));
    }

    @Test
    void normsAreEachTensorsL2Norm() {
        assumeTrue(FusedOps.available(), "needs a JNI built with scripts/gpu/djl-fused.patch");
        try (NDManager nd = Torch.engine().newBaseManager(TestEngine.device())) {
            List<NDArray> ts = tensors(nd, new SplittableRandom(3));
            float[] norms = FusedOps.norms(ts);
            assertThat(norms).hasSize(ts.size());
            for (int i = 0; i < ts.size(); i++) {
                double sq = 0;
                for (float x : ts.get(i).toFloatArray()) {
                    sq += (double) x * x;
                }
                assertThat((double) norms[i]).isCloseTo(Math.sqrt(sq), within(1e-5 * Math.sqrt(sq)));
            }
            assertThat(FusedOps.norms(List.of())).isEmpty();
        }
    }

    @Test
    void zeroSetsEveryTensorToZero() {
        assumeTrue(FusedOps.available(), "needs a JNI built with scripts/gpu/djl-fused.patch");
        try (NDManager nd = Torch.engine().newBaseManager(TestEngine.device())) {
            List<NDArray> ts = tensors(nd, new SplittableRandom(5));
            FusedOps.zero(ts);
            ts.forEach(t -> assertThat(t.abs().max().getFloat()).isZero());
        }
    }

    /** Weights and moments after steps with the given clip factors, through the fused or the per-tensor path. */
    private static Map<String, float[]> run(boolean useFused, float[] scales) {
        boolean was = FusedOps.enabled;
        FusedOps.enabled = useFused;
        try (NDManager nd = Torch.engine().newBaseManager(TestEngine.device())) {
            SplittableRandom rng = new SplittableRandom(7);
            List<NDArray> ws = tensors(nd, rng);
            Map<String, NDArray> params = new LinkedHashMap<>();
            for (int i = 0; i < ws.size(); i++) {
                params.put("w" + i, ws.get(i));
            }
            Map<String, float[]> out = new LinkedHashMap<>();
            try (AdamW adam = new AdamW(nd, params)) {
                for (float scale : scales) {
                    Map<String, NDArray> grads = new LinkedHashMap<>();
                    List<NDArray> gs = tensors(nd, rng);
                    for (int i = 0; i < gs.size(); i++) {
                        grads.put("w" + i, gs.get(i));
                    }
                    adam.update(grads, PARAMS, scale);
                }
                params.forEach((k, w) -> out.put(k, w.toFloatArray()));
                adam.state().forEach((k, s) -> out.put(k, s.toFloatArray()));
            }
            return out;
        } finally {
            FusedOps.enabled = was;
        }
    }

    /** Tensors of the shapes a small layer has: a matrix, a vector, a LoRA pair's narrow matrix. */
    private static List<NDArray> tensors(NDManager nd, SplittableRandom rng) {
        List<NDArray> out = new ArrayList<>();
        for (Shape s : List.of(new Shape(8, 16), new Shape(16), new Shape(4, 16))) {
            float[] v = new float[(int) s.size()];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) rng.nextGaussian();
            }
            out.add(nd.create(v, s));
        }
        return out;
    }
}

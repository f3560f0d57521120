package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;

/**
 * A linear layer {@code y = x W^T + b}. The weight is held transposed and contiguous, {@code wt = W^T} with
 * shape [in, out], so the forward pass is one plain GEMM ({@code x.matMul(wt)}) that starts from the activation:
 * its result belongs to the caller's per-step scope. Files keep the Hugging Face layout [out, in]; the model
 * transposes on load and save.
 *
 * @param name HF module path, e.g. {@code model.layers.0.self_attn.q_proj}
 * @param bias null when the layer has none
 */
public record Linear(String name, NDArray wt, NDArray bias) {
    /**
     * {@code x} [..., in] -> [..., out]. The input is folded to two dimensions first: PyTorch's CPU matmul of a
     * [B, 1, in] activation (a decode step) is up to twice as slow as the same product on [B, in].
     */
    public NDArray apply(NDArray x) {
        Shape s = x.getShape();
        NDArray y = x.reshape(-1, s.get(s.dimension() - 1)).matMul(wt);
        if (bias != null) {
            y = y.add(bias);
        }
        return y.reshape(s.slice(0, s.dimension() - 1).add(out()));
    }

    public long in() {
        return wt.getShape().get(0);
    }

    public long out() {
        return wt.getShape().get(1);
    }
}

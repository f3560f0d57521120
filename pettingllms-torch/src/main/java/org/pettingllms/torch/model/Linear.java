package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

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
    public NDArray apply(NDArray x) {
        NDArray y = x.matMul(wt);
        return bias == null ? y : y.add(bias);
    }

    public long in() {
        return wt.getShape().get(0);
    }

    public long out() {
        return wt.getShape().get(1);
    }
}

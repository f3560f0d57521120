package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * A linear layer {@code y = x W^T + b} with the weight in Hugging Face layout [out, in].
 *
 * @param name HF module path, e.g. {@code model.layers.0.self_attn.q_proj}
 * @param bias null when the layer has none
 */
public record Linear(String name, NDArray weight, NDArray bias) {
    /** {@code x W^T + b}; every intermediate belongs to {@code x}'s manager (the caller's per-step scope). */
    public NDArray apply(NDArray x) {
        NDArray y = x.matMul(Scope.of(x, weight.transpose()));
        return bias == null ? y : y.add(bias);
    }
}

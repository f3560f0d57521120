package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * A linear layer {@code y = W x + b} on feature-major activations: {@code x} is [in, N] (a column per token) and
 * the weight keeps the Hugging Face layout [out, in], so the forward pass is one plain GEMM {@code W @ x}; its
 * result is moved to the activation's per-step scope.
 *
 * @param name HF module path, e.g. {@code model.layers.0.self_attn.q_proj}
 * @param bias null when the layer has none
 */
public record Linear(String name, NDArray w, NDArray bias) {
    /** {@code x} [in, N] -> [out, N]. */
    public NDArray apply(NDArray x) {
        NDArray y = Scope.of(x, w.matMul(x));
        return bias == null ? y : y.add(Scope.of(x, bias.expandDims(-1)));
    }

    public long in() {
        return w.getShape().get(1);
    }

    public long out() {
        return w.getShape().get(0);
    }
}

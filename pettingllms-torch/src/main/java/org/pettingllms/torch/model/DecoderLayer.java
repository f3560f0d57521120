package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.index.NDIndex;
import java.util.Map;

/**
 * One decoder layer. q, k and v (and gate and up) are row views of one fused weight each ({@code qkv},
 * {@code gateUp}): sampling runs one wide GEMM where it would run three narrow ones, while training, adapters,
 * files and the optimizer see the separate Hugging Face tensors. The views share storage with the fused weight,
 * so an in-place update of a part is seen by the fused product with nothing to invalidate.
 *
 * @param qkNorm q_norm and k_norm stacked, [2, hd] (their parameters are its rows); null without qk-norm
 */
record DecoderLayer(
        NDArray ln1,
        NDArray ln2,
        NDArray qkNorm,
        NDArray qNorm,
        NDArray kNorm,
        Linear q,
        Linear k,
        Linear v,
        Linear o,
        Linear gate,
        Linear up,
        Linear down,
        Linear qkv,
        Linear gateUp) {
    /**
     * Layer {@code p}'s weights from {@code params} (Hugging Face names under prefix {@code p}), with q/k/v, gate/up
     * and the q/k norms fused; each part's entry in {@code params} becomes a view of its fused weight.
     */
    static DecoderLayer fused(Map<String, NDArray> params, String p, ModelConfig config) {
        NDArray qkNorm = config.qkNorm()
                ? fuseRows(params, config, p + "self_attn.q_norm.weight", p + "self_attn.k_norm.weight")
                : null;
        Linear qkv = fuse(
                params,
                config,
                p + "self_attn.qkv",
                config.qkvBias(),
                p + "self_attn.q_proj",
                p + "self_attn.k_proj",
                p + "self_attn.v_proj");
        Linear gateUp = fuse(params, config, p + "mlp.gate_up", false, p + "mlp.gate_proj", p + "mlp.up_proj");
        return new DecoderLayer(
                need(params, config, p + "input_layernorm.weight"),
                need(params, config, p + "post_attention_layernorm.weight"),
                qkNorm,
                config.qkNorm() ? need(params, config, p + "self_attn.q_norm.weight") : null,
                config.qkNorm() ? need(params, config, p + "self_attn.k_norm.weight") : null,
                linear(params, config, p + "self_attn.q_proj", config.qkvBias()),
                linear(params, config, p + "self_attn.k_proj", config.qkvBias()),
                linear(params, config, p + "self_attn.v_proj", config.qkvBias()),
                linear(params, config, p + "self_attn.o_proj", false),
                linear(params, config, p + "mlp.gate_proj", false),
                linear(params, config, p + "mlp.up_proj", false),
                linear(params, config, p + "mlp.down_proj", false),
                qkv,
                gateUp);
    }

    /**
     * Stacks the given linear layers' weights ([out, in]) along the output axis into one fused layer and replaces
     * each part's parameter by a view of its rows (biases likewise).
     */
    private static Linear fuse(
            Map<String, NDArray> params, ModelConfig config, String name, boolean bias, String... parts) {
        NDList w = new NDList();
        NDList b = new NDList();
        for (String part : parts) {
            w.add(need(params, config, part + ".weight"));
            if (bias) {
                b.add(need(params, config, part + ".bias"));
            }
        }
        NDArray fused = NDArrays.concat(w, 0);
        NDArray fusedBias = bias ? NDArrays.concat(b, 0) : null;
        long from = 0;
        for (int i = 0; i < parts.length; i++) {
            long to = from + w.get(i).getShape().get(0);
            replace(params, parts[i] + ".weight", fused.get(new NDIndex("{}:{}", from, to)));
            if (bias) {
                replace(params, parts[i] + ".bias", fusedBias.get(new NDIndex("{}:{}", from, to)));
            }
            from = to;
        }
        return new Linear(name, fused, fusedBias);
    }

    /** Stacks two vectors into the rows of one [2, n] array; each parameter becomes a view of its row. */
    private static NDArray fuseRows(Map<String, NDArray> params, ModelConfig config, String first, String second) {
        NDArray stacked = NDArrays.stack(new NDList(need(params, config, first), need(params, config, second)));
        replace(params, first, stacked.get(0));
        replace(params, second, stacked.get(1));
        return stacked;
    }

    private static void replace(Map<String, NDArray> params, String name, NDArray view) {
        params.put(name, view).close();
    }

    private static Linear linear(Map<String, NDArray> params, ModelConfig config, String name, boolean bias) {
        return new Linear(
                name, need(params, config, name + ".weight"), bias ? need(params, config, name + ".bias") : null);
    }

    static NDArray need(Map<String, NDArray> params, ModelConfig config, String name) {
        NDArray a = params.get(name);
        if (a == null) {
            throw new IllegalArgumentException(
                    "model weights lack '" + name + "' (model_type " + config.modelType() + ")");
        }
        return a;
    }
}

package org.pettingllms.torch.model;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.torch.io.Tensor;

/**
 * The weights of a model made from scratch, drawn as Hugging Face initialises them: matrices ~ N(0, 0.02)
 * ({@code initializer_range}), norms 1, biases 0; the same draws for a seed, in a fixed order, on any device.
 */
public final class RandomWeights {
    private RandomWeights() {}

    /** A decoder's weights in Hugging Face layout (a family adds its own beside them). */
    public static Map<String, Tensor> decoder(ModelConfig cfg, SplittableRandom rng) {
        Map<String, Tensor> t = new LinkedHashMap<>();
        int h = cfg.hiddenSize();
        int q = cfg.numHeads() * cfg.headDim();
        int kv = cfg.numKvHeads() * cfg.headDim();
        normal(t, "model.embed_tokens.weight", rng, cfg.vocabSize(), h);
        for (int i = 0; i < cfg.numLayers(); i++) {
            String p = "model.layers." + i + ".";
            ones(t, p + "input_layernorm.weight", h);
            ones(t, p + "post_attention_layernorm.weight", h);
            if (cfg.qkNorm()) {
                ones(t, p + "self_attn.q_norm.weight", cfg.headDim());
                ones(t, p + "self_attn.k_norm.weight", cfg.headDim());
            }
            normal(t, p + "self_attn.q_proj.weight", rng, q, h);
            normal(t, p + "self_attn.k_proj.weight", rng, kv, h);
            normal(t, p + "self_attn.v_proj.weight", rng, kv, h);
            if (cfg.qkvBias()) {
                t.put(p + "self_attn.q_proj.bias", new Tensor(new long[] {q}, new float[q]));
                t.put(p + "self_attn.k_proj.bias", new Tensor(new long[] {kv}, new float[kv]));
                t.put(p + "self_attn.v_proj.bias", new Tensor(new long[] {kv}, new float[kv]));
            }
            normal(t, p + "self_attn.o_proj.weight", rng, h, q);
            normal(t, p + "mlp.gate_proj.weight", rng, cfg.intermediateSize(), h);
            normal(t, p + "mlp.up_proj.weight", rng, cfg.intermediateSize(), h);
            normal(t, p + "mlp.down_proj.weight", rng, h, cfg.intermediateSize());
        }
        ones(t, "model.norm.weight", h);
        if (!cfg.tieWordEmbeddings()) {
            normal(t, "lm_head.weight", rng, cfg.vocabSize(), h);
        }
        return t;
    }

    /** Draws N(0, 0.02) values (Hugging Face's {@code initializer_range}) for a [rows, cols] weight. */
    public static void normal(Map<String, Tensor> t, String name, SplittableRandom rng, int rows, int cols) {
        float[] d = new float[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = (float) (gaussian(rng) * 0.02);
        }
        t.put(name, new Tensor(new long[] {rows, cols}, d));
    }

    private static double gaussian(SplittableRandom rng) {
        double u = 1 - rng.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextDouble());
    }

    /** A vector of ones (a norm's weight). */
    public static void ones(Map<String, Tensor> t, String name, int n) {
        float[] d = new float[n];
        Arrays.fill(d, 1f);
        t.put(name, new Tensor(new long[] {n}, d));
    }
}

package org.pettingllms.cli;

import org.pettingllms.core.backend.Level;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.torch.model.ModelConfig;

/**
 * A dry run's estimate of the device memory a training step needs, from the configs alone: the weights (and a
 * frozen image encoder's), what training keeps per trainable weight (LoRA adapters in float32 with AdamW's two
 * moments; or, fully fine-tuned, AdamW's moments and float32 masters of bfloat16 weights), the KV cache of the
 * largest sampling batch, and the float32 logits of one training micro-batch. Activations between layers are not
 * counted; it is an estimate to size a machine with, not a measurement.
 */
final class MemoryEstimate {
    private static final double GIB = 1024.0 * 1024 * 1024;

    private MemoryEstimate() {}

    /**
     * @param extraParameters weights beyond the decoder (a vision tower)
     * @param promptTokens    the longest first prompt, images included
     */
    static String of(RunConfig cfg, ModelConfig m, long extraParameters, int promptTokens) {
        boolean bf16 = cfg.engine().dtype().equals("bf16");
        int width = bf16 ? 2 : 4;
        long decoder = decoderParameters(m);
        int models = cfg.policy().level() == Level.L3
                ? cfg.task().roles().isEmpty() ? 2 : cfg.task().roles().size()
                : 1;
        double weights = (double) (decoder + extraParameters) * width * models;
        boolean lora = cfg.policy().level() == Level.L2;
        double trainable;
        if (lora) {
            long perRole =
                    loraParameters(m, cfg.engine().loraRank(), cfg.engine().loraTargets());
            int roles = Math.max(
                    1, cfg.task().roles().isEmpty() ? 2 : cfg.task().roles().size());
            trainable = (double) perRole * roles * (4 + 8); // float32 adapter + AdamW's m and v
        } else {
            trainable = (double) decoder * models * (8 + (bf16 ? 4 : 0)); // m, v (+ float32 masters)
        }
        long tokens = (long) promptTokens + cfg.rollout().sampling().maxTokens();
        long rows = Math.min(
                cfg.engine().maxBatchRows(),
                (long) cfg.rollout().problemsPerStep() * cfg.rollout().k());
        double kv = (double) rows * tokens * m.numLayers() * 2L * m.numKvHeads() * m.headDim() * width;
        double logits = (double) cfg.train().microBatchSize() * tokens * m.vocabSize() * 4 * 2; // logits, log-softmax
        return String.format(
                "memory per step (estimate from the configs, not measured): weights %.1f GiB (%,d parameters%s, %s)"
                        + " + %s %.1f GiB + KV cache %.1f GiB (%d rows x %d tokens) + logits %.1f GiB (micro-batch %d"
                        + " x %d tokens) = %.1f GiB; activations between layers not counted",
                weights / GIB,
                decoder + extraParameters,
                extraParameters > 0 ? String.format(", %,d of them the frozen image encoder", extraParameters) : "",
                bf16 ? "bf16" : "fp32",
                lora ? "LoRA adapters and AdamW" : "AdamW state",
                trainable / GIB,
                kv / GIB,
                rows,
                tokens,
                logits / GIB,
                cfg.train().microBatchSize(),
                tokens,
                (weights + trainable + kv + logits) / GIB);
    }

    /** The decoder's weights from its config: embeddings (and an untied head), layers, final norm. */
    static long decoderParameters(ModelConfig m) {
        long h = m.hiddenSize();
        long q = (long) m.numHeads() * m.headDim();
        long kv = (long) m.numKvHeads() * m.headDim();
        long layer = 2 * h + h * q + 2 * h * kv + q * h + 3 * h * m.intermediateSize();
        if (m.qkvBias()) {
            layer += q + 2 * kv;
        }
        if (m.qkNorm()) {
            layer += 2L * m.headDim();
        }
        long embed = (long) m.vocabSize() * h;
        return embed * (m.tieWordEmbeddings() ? 1 : 2) + m.numLayers() * layer + h;
    }

    /** One adapter's weights: rank x (in + out) for each targeted linear layer of each layer. */
    static long loraParameters(ModelConfig m, int rank, java.util.List<String> targets) {
        long h = m.hiddenSize();
        long q = (long) m.numHeads() * m.headDim();
        long kv = (long) m.numKvHeads() * m.headDim();
        long i = m.intermediateSize();
        long perLayer = 0;
        for (String t : targets) {
            perLayer += switch (t) {
                case "q_proj" -> h + q;
                case "k_proj", "v_proj" -> h + kv;
                case "o_proj" -> q + h;
                case "gate_proj", "up_proj" -> h + i;
                case "down_proj" -> i + h;
                default -> 0;
            };
        }
        return perLayer * rank * m.numLayers();
    }
}

package org.pettingllms.torch.model;

import java.util.List;
import org.pettingllms.text.CharCodec;

/** Qwen3-style configurations for text models made here from scratch (the text family's presets). */
public final class Presets {
    /** The text presets' names. */
    public static final List<String> TEXT = List.of("tiny", "2m", "20m", "qwen3-0.6b", "qwen3-1.7b");

    private Presets() {}

    /**
     * {@code tiny}: about 0.9M parameters over the character vocabulary of {@link CharCodec} (for compact
     * prompts); {@code 2m} and {@code 20m}: about 2M and 19M parameters (benchmarks); {@code qwen3-0.6b} and
     * {@code qwen3-1.7b}: the shapes of Qwen3-0.6B and Qwen3-1.7B as their {@code config.json} gives them (151,936
     * tokens, 28 layers, 16 query and 8 key-value heads of 128, tied embeddings), for benchmarks with random weights.
     */
    public static ModelConfig of(String name) {
        return switch (name) {
            case "tiny" -> small(128, 128, 384, 4, 4, 32, 1e4, true, CharCodec.EOS);
            case "2m" -> small(512, 192, 512, 4, 6, 32, 1e6, false, 2);
            case "20m" -> small(4096, 384, 1024, 10, 6, 64, 1e6, false, 2);
            case "qwen3-0.6b" -> qwen3(1024, 3072);
            case "qwen3-1.7b" -> qwen3(2048, 6144);
            default ->
                throw new IllegalArgumentException("unknown text model preset '" + name + "'; text presets: " + TEXT);
        };
    }

    private static ModelConfig small(
            int vocab, int hidden, int inner, int layers, int heads, int headDim, double theta, boolean tied, int eos) {
        return ModelConfig.builder("qwen3")
                .vocabSize(vocab)
                .widths(hidden, inner)
                .layers(layers, heads, 2, headDim)
                .rope(theta, RopeScaling.NONE)
                .tieWordEmbeddings(tied)
                .maxPositionEmbeddings(1024)
                .tokens(1, eos)
                .build();
    }

    private static ModelConfig qwen3(int hidden, int intermediate) {
        return ModelConfig.builder("qwen3")
                .vocabSize(151_936)
                .widths(hidden, intermediate)
                .layers(28, 16, 8, 128)
                .rope(1e6, RopeScaling.NONE)
                .tieWordEmbeddings(true)
                .maxPositionEmbeddings(40_960)
                .tokens(151_643, 151_645)
                .build();
    }
}

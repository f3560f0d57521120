package org.pettingllms.torch.model;

import org.pettingllms.text.CharCodec;

/** Qwen3-style configurations for models made here from scratch. */
public final class Presets {
    /** The preset names, for messages. */
    public static final String NAMES = "tiny, 2m, 20m, qwen3-0.6b, qwen3-1.7b, vl-tiny";

    private Presets() {}

    /**
     * {@code tiny}: about 0.9M parameters over the character vocabulary of {@link CharCodec} (for compact
     * prompts); {@code 2m} and {@code 20m}: about 2M and 19M parameters (benchmarks); {@code qwen3-0.6b} and
     * {@code qwen3-1.7b}: the shapes of Qwen3-0.6B and Qwen3-1.7B as their {@code config.json} gives them (151,936
     * tokens, 28 layers, 16 query and 8 key-value heads of 128, tied embeddings), for benchmarks with random weights.
     */
    public static ModelConfig of(String name) {
        return switch (name) {
            case "tiny" ->
                new ModelConfig("qwen3", 128, 128, 384, 4, 4, 2, 32, 1e-6, 1e4, true, false, 1024, 1, CharCodec.EOS);
            case "2m" -> new ModelConfig("qwen3", 512, 192, 512, 4, 6, 2, 32, 1e-6, 1e6, false, false, 1024, 1, 2);
            case "20m" -> new ModelConfig("qwen3", 4096, 384, 1024, 10, 6, 2, 64, 1e-6, 1e6, false, false, 1024, 1, 2);
            case "qwen3-0.6b" -> qwen3(1024, 3072);
            case "qwen3-1.7b" -> qwen3(2048, 6144);
            case "vl-tiny" ->
                throw new IllegalArgumentException(
                        "'vl-tiny' is a vision-language preset: ModelFamilies.fresh makes it");
            default -> throw new IllegalArgumentException("unknown model preset '" + name + "'; presets: " + NAMES);
        };
    }

    private static ModelConfig qwen3(int hidden, int intermediate) {
        return new ModelConfig(
                "qwen3",
                151_936,
                hidden,
                intermediate,
                28,
                16,
                8,
                128,
                1e-6,
                1e6,
                true,
                false,
                40_960,
                151_643,
                151_645);
    }
}

package org.pettingllms.torch.model;

import org.pettingllms.text.CharCodec;

/** Qwen3-style configurations for models made here from scratch. */
public final class Presets {
    private Presets() {}

    /**
     * {@code tiny}: about 0.9M parameters over the character vocabulary of {@link CharCodec} (for compact
     * prompts); {@code 2m} and {@code 20m}: about 2M and 19M parameters (benchmarks).
     */
    public static ModelConfig of(String name) {
        return switch (name) {
            case "tiny" ->
                new ModelConfig("qwen3", 128, 128, 384, 4, 4, 2, 32, 1e-6, 1e4, true, false, 1024, 1, CharCodec.EOS);
            case "2m" -> new ModelConfig("qwen3", 512, 192, 512, 4, 6, 2, 32, 1e-6, 1e6, false, false, 1024, 1, 2);
            case "20m" -> new ModelConfig("qwen3", 4096, 384, 1024, 10, 6, 2, 64, 1e-6, 1e6, false, false, 1024, 1, 2);
            default ->
                throw new IllegalArgumentException("unknown model preset '" + name + "'; presets: tiny, 2m, 20m");
        };
    }
}

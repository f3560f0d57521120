package org.pettingllms.torch.engine;

import java.util.List;

/** How fresh adapters are made: rank, alpha and the linear layers they adapt (by last name or full path). */
public record LoraSettings(int rank, double alpha, List<String> targetModules) {
    public static final LoraSettings DEFAULT = new LoraSettings(
            8, 16, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"));

    public LoraSettings {
        if (rank < 1 || alpha <= 0 || targetModules.isEmpty()) {
            throw new IllegalArgumentException("LoRA needs rank >= 1, alpha > 0 and at least one target module");
        }
        targetModules = List.copyOf(targetModules);
    }
}

package org.pettingllms.core.data;

import java.util.Objects;
import java.util.Optional;

/**
 * A trainable policy: a model, optionally with a LoRA adapter on it. Two roles with equal refs share weights.
 *
 * @param model   model name (a key of the run's models, or a directory)
 * @param adapter adapter name, or null for the model's own weights
 */
public record PolicyRef(String model, String adapter) {
    public PolicyRef {
        Objects.requireNonNull(model, "model");
        if (model.isBlank()) {
            throw new IllegalArgumentException("policy model name must not be blank");
        }
        if (adapter != null && adapter.isBlank()) {
            throw new IllegalArgumentException("adapter name must be null or non-blank");
        }
    }

    public static PolicyRef of(String model) {
        return new PolicyRef(model, null);
    }

    public Optional<String> adapterName() {
        return Optional.ofNullable(adapter);
    }

    @Override
    public String toString() {
        return adapter == null ? model : model + "+" + adapter;
    }
}

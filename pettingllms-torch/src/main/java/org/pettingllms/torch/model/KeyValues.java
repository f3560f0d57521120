package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * Where a forward pass keeps the keys and values it computes and finds the earlier ones: a generation cache
 * ({@link KvCache}) or a shared prompt's keys that many completions attend to ({@link SharedPrefix}).
 */
public interface KeyValues {
    /**
     * Takes this step's keys, transposed [B, kvHeads, hd, T], and values [B, kvHeads, T, hd] of {@code layer};
     * returns every key and value the step's queries attend to, [B, kvHeads, hd, S] and [B, kvHeads, S, hd].
     */
    NDArray[] append(int layer, NDArray kT, NDArray v);
}

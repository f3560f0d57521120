package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * Where a forward pass keeps the keys and values it computes and finds the earlier ones: a generation cache
 * ({@link KvCache}) or a shared prompt's keys that many completions attend to ({@link SharedPrefix}).
 */
public interface KeyValues {
    /**
     * Takes this step's keys, transposed [B, kvHeads, hd, T], and values [B, kvHeads, T, hd] of {@code layer};
     * returns every key and value the step's queries attend to.
     */
    Attended append(int layer, NDArray kT, NDArray v);

    /**
     * The keys and values a step's queries attend to.
     *
     * @param keysT  transposed keys [B, kvHeads, hd, S]
     * @param values values [B, kvHeads, S, hd]
     */
    record Attended(NDArray keysT, NDArray values) {}
}

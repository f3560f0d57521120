package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;

/**
 * A prompt forward that several completions share (the K candidates of a tree group): the prompt pass keeps each
 * layer's keys and values, with their autograd history when gradients are recorded; the completion pass gathers,
 * for each completion row, its prompt's keys and values ({@code rows}) and puts its own after them. The gather's
 * backward sums the completions' gradients into the one prompt pass, so the prompt runs forward and backward once.
 */
public final class SharedPrefix {
    private final NDArray[] keys;
    private final NDArray[] values;

    public SharedPrefix(int layers) {
        this.keys = new NDArray[layers];
        this.values = new NDArray[layers];
    }

    /** The prompt pass: keeps the keys and values, attends to them alone. */
    public KeyValues capture() {
        return (layer, kT, v) -> {
            keys[layer] = kT;
            values[layer] = v;
            return new KeyValues.Attended(kT, v);
        };
    }

    /**
     * The completion pass: row i attends to prompt row {@code rows[i]}'s keys and values, then to its own.
     *
     * @param rows int64 [N], the prompt row of each completion row
     */
    public KeyValues extend(NDArray rows) {
        return (layer, kT, v) -> {
            if (keys[layer] == null) {
                throw new IllegalStateException("the prompt pass has not run: no keys for layer " + layer);
            }
            NDArray pk = keys[layer].get(rows);
            NDArray pv = values[layer].get(rows);
            return new KeyValues.Attended(pk.concat(kT, 3), pv.concat(v, 2));
        };
    }
}

package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;

/** Keys and values of the positions seen so far, per layer: [B, kvHeads, S, headDim], owned by one manager. */
public final class KvCache {
    private final NDManager manager;
    private final NDArray[] keys;
    private final NDArray[] values;

    public KvCache(NDManager manager, int layers) {
        this.manager = manager;
        this.keys = new NDArray[layers];
        this.values = new NDArray[layers];
    }

    /** Positions cached so far. */
    public long length() {
        return keys[0] == null ? 0 : keys[0].getShape().get(2);
    }

    /** Appends this step's keys and values of {@code layer}; returns the full keys and values. */
    NDArray[] append(int layer, NDArray k, NDArray v) {
        keys[layer] = grow(keys[layer], k);
        values[layer] = grow(values[layer], v);
        return new NDArray[] {keys[layer], values[layer]};
    }

    private NDArray grow(NDArray old, NDArray step) {
        NDArray next = old == null ? step.duplicate() : old.concat(step, 2);
        next.attach(manager);
        if (old != null) {
            old.close();
        }
        return next;
    }

    /** Keeps only the given batch rows (finished rows are dropped from decoding). */
    public void select(NDArray rowIndex) {
        for (int l = 0; l < keys.length; l++) {
            NDArray k = keys[l].get(rowIndex);
            NDArray v = values[l].get(rowIndex);
            k.attach(manager);
            v.attach(manager);
            keys[l].close();
            values[l].close();
            keys[l] = k;
            values[l] = v;
        }
    }
}

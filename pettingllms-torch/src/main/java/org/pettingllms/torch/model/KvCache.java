package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * Keys and values of the positions seen so far, per layer, preallocated for {@code capacity} positions:
 * [B, kvHeads, capacity, headDim]. A step writes its keys and values in place and attention reads the filled
 * prefix, so decoding never copies the whole cache.
 */
public final class KvCache {
    private final NDManager manager;
    private final long capacity;
    private final NDArray[] keys;
    private final NDArray[] values;
    private final long[] filled;

    public KvCache(NDManager manager, int layers, long capacity) {
        this.manager = manager;
        this.capacity = capacity;
        this.keys = new NDArray[layers];
        this.values = new NDArray[layers];
        this.filled = new long[layers];
    }

    /** Positions cached so far. */
    public long length() {
        return filled[0];
    }

    /**
     * Writes this step's keys and values [B, kvHeads, T, hd] of {@code layer}; returns views of all cached keys and
     * values, owned by the step's scope.
     */
    NDArray[] append(int layer, NDArray k, NDArray v) {
        long t = k.getShape().get(2);
        if (keys[layer] == null) {
            Shape s = new Shape(k.getShape().get(0), k.getShape().get(1), capacity, k.getShape().get(3));
            keys[layer] = manager.zeros(s, k.getDataType(), k.getDevice());
            values[layer] = manager.zeros(s, v.getDataType(), v.getDevice());
        }
        long from = filled[layer];
        if (from + t > capacity) {
            throw new IllegalStateException("KV cache full: " + capacity + " positions");
        }
        NDIndex slot = new NDIndex(":, :, {}:{}", from, from + t);
        keys[layer].set(slot, k);
        values[layer].set(slot, v);
        filled[layer] = from + t;
        NDIndex prefix = new NDIndex(":, :, :{}", filled[layer]);
        NDArray kv = keys[layer].get(prefix);
        NDArray vv = values[layer].get(prefix);
        kv.attach(k.getManager());
        vv.attach(k.getManager());
        return new NDArray[] {kv, vv};
    }

    /** Keeps only the given batch rows (finished rows leave the batch). */
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

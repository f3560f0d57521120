package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.engine.PtNDArray;
import ai.djl.pytorch.jni.JniUtils;

/**
 * Keys and values of the positions seen so far, per layer, preallocated for {@code capacity} positions: keys
 * transposed, [B, kvHeads, headDim, capacity], values [B, kvHeads, capacity, headDim]; positions not yet filled hold
 * zeros. A step writes its keys and values in place and attention reads the filled prefix, so decoding never copies
 * the whole cache; keys are kept transposed because the score matmul q k^T then reads a strided prefix directly (a
 * transposed view of a prefix would make the matmul copy it first).
 */
public final class KvCache implements KeyValues {
    private final NDManager manager;
    private long capacity;
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
     * Writes this step's keys, transposed [B, kvHeads, hd, T], and values [B, kvHeads, T, hd] of {@code layer};
     * returns views of all cached keys, transposed [B, kvHeads, hd, S], and values [B, kvHeads, S, hd], owned by
     * the step's scope.
     */
    @Override
    public Attended append(int layer, NDArray kT, NDArray v) {
        long t = kT.getShape().get(3);
        if (keys[layer] == null) {
            Shape kv = kT.getShape();
            keys[layer] = manager.zeros(
                    new Shape(kv.get(0), kv.get(1), kv.get(2), capacity), kT.getDataType(), kT.getDevice());
            values[layer] =
                    manager.zeros(new Shape(kv.get(0), kv.get(1), capacity, kv.get(2)), v.getDataType(), v.getDevice());
        }
        long from = filled[layer];
        if (from + t > capacity) {
            throw new IllegalStateException("KV cache full: " + capacity + " positions");
        }
        // One slice per cut, not an NDIndex (which slices every leading axis and builds the index in several
        // native calls): at batch 1 this step runs per layer per token. The positions from `filled` on are zero
        // (made as zeros, and select and gather keep that), so adding writes them.
        NDManager scope = kT.getManager();
        try (NDArray kSlot = slice(keys[layer], 3, from, from + t);
                NDArray vSlot = slice(values[layer], 2, from, from + t)) {
            kSlot.addi(kT);
            vSlot.addi(v);
        }
        filled[layer] = from + t;
        NDArray kv = slice(keys[layer], 3, 0, filled[layer]);
        NDArray vv = slice(values[layer], 2, 0, filled[layer]);
        kv.attach(scope);
        vv.attach(scope);
        return new Attended(kv, vv);
    }

    /** A view of {@code a}'s positions {@code [from, to)} along {@code axis}: one native call. */
    private static NDArray slice(NDArray a, int axis, long from, long to) {
        return JniUtils.slice((PtNDArray) a, axis, from, to, 1);
    }

    /**
     * Rebuilds the cache with rows of its own: new row i holds cached row {@code rows[i]}'s keys and values at the
     * positions {@code times[i]}, in that order, and room for {@code newCapacity} positions. Turns a group layout
     * (one cached row per shared prompt, its candidates' tokens interleaved after it) into one row per candidate.
     *
     * @param rows  int64 [L], the cached row of each new row
     * @param times int64 [L, S], the cached positions of each new row; S positions are then filled
     */
    public void gather(NDArray rows, NDArray times, long newCapacity) {
        long l = times.getShape().get(0);
        long s = times.getShape().get(1);
        if (s > newCapacity) {
            throw new IllegalArgumentException("gathering " + s + " positions into a cache of " + newCapacity);
        }
        for (int layer = 0; layer < keys.length; layer++) {
            try (NDManager tmp = manager.newSubManager()) {
                NDArray k = keys[layer].get(rows);
                k.attach(tmp);
                Shape ks = k.getShape();
                NDArray kIndex = times.reshape(l, 1, 1, s).broadcast(new Shape(l, ks.get(1), ks.get(2), s));
                kIndex.attach(tmp);
                NDArray kSel = k.gather(kIndex, 3);
                kSel.attach(tmp);
                NDArray v = values[layer].get(rows);
                v.attach(tmp);
                Shape vs = v.getShape();
                NDArray vIndex = times.reshape(l, 1, s, 1).broadcast(new Shape(l, vs.get(1), s, vs.get(3)));
                vIndex.attach(tmp);
                NDArray vSel = v.gather(vIndex, 2);
                vSel.attach(tmp);
                NDArray nk =
                        manager.zeros(new Shape(l, ks.get(1), ks.get(2), newCapacity), k.getDataType(), k.getDevice());
                NDArray nv =
                        manager.zeros(new Shape(l, vs.get(1), newCapacity, vs.get(3)), v.getDataType(), v.getDevice());
                nk.set(new NDIndex().addAllDim(3).addSliceDim(0, s), kSel);
                nv.set(new NDIndex().addAllDim(2).addSliceDim(0, s), vSel);
                keys[layer].close();
                values[layer].close();
                keys[layer] = nk;
                values[layer] = nv;
                filled[layer] = s;
            }
        }
        capacity = newCapacity;
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

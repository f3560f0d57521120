package org.pettingllms.torch.sampling;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.KvCache;
import org.pettingllms.torch.model.LoraAdapter;

/** Decoding with a cache row per running row; finished rows leave the batch. */
final class RowDecoding implements DecodeLayout {
    private final List<LoraAdapter> adapters; // per request
    private int[] active;
    private boolean[][] valid; // per active row: which cached keys are real (left padding masked)

    /**
     * @param active   the running rows, in cache row order
     * @param valid    each one's cached keys' validity
     * @param adapters every request's adapter
     */
    RowDecoding(int[] active, boolean[][] valid, List<LoraAdapter> adapters) {
        this.active = active;
        this.valid = valid;
        this.adapters = adapters;
    }

    @Override
    public int[] running() {
        return active;
    }

    @Override
    public void drop(FinishReason[] finish, KvCache cache, NDManager tmp) {
        long[] keep = IntStream.range(0, active.length)
                .filter(a -> finish[active[a]] == null)
                .asLongStream()
                .toArray();
        if (keep.length == active.length) {
            return;
        }
        cache.select(tmp.create(keep));
        int[] nextActive = new int[keep.length];
        boolean[][] nextValid = new boolean[keep.length][];
        for (int i = 0; i < keep.length; i++) {
            nextActive[i] = active[(int) keep[i]];
            nextValid[i] = valid[(int) keep[i]];
        }
        active = nextActive;
        valid = nextValid;
    }

    @Override
    public NDArray step(DecoderModel model, KvCache cache, int[] token, long[] position, NDManager step) {
        int b = active.length;
        long[] ids = new long[b];
        long[] pos = new long[b];
        List<LoraAdapter> rowAdapters = new ArrayList<>(b);
        for (int a = 0; a < b; a++) {
            ids[a] = token[active[a]];
            pos[a] = position[active[a]]++;
            rowAdapters.add(adapters.get(active[a]));
        }
        for (int a = 0; a < b; a++) { // this step's key is real
            valid[a] = Arrays.copyOf(valid[a], valid[a].length + 1);
            valid[a][valid[a].length - 1] = true;
        }
        int past = (int) cache.length();
        return model.lastLogits(
                step.create(ids, new Shape(b, 1)),
                step.create(pos, new Shape(b, 1)),
                Inputs.causalBias(step, valid, 1, past),
                cache,
                Generator.rows(rowAdapters));
    }
}

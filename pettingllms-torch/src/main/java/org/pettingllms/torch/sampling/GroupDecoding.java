package org.pettingllms.torch.sampling;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.KvCache;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;

/**
 * Decoding in the group layout: the candidates that share a prompt (a tree group's K rows) decode in one cache
 * row, the prompt's, with their tokens as K slots of each step. Step s appends the K slots' keys after the prompt
 * at positions {@code wp + K s + j}; slot j attends to the prompt and to its own positions {@code wp + K t + j},
 * so it computes what a row of its own computes, while the prompt's keys are held and read once per group instead
 * of once per candidate. Reading them K times is what makes a decode step with a long shared prompt slow (the
 * attention over the copies is memory-bound), and the copies cost K times the memory.
 *
 * <p>A slot whose row has finished keeps a place (its token is ignored) until its whole group has finished. Each
 * slot's queries also meet the other slots' keys, masked: when that waste outgrows the saving (see
 * {@link #worthKeeping}), {@link #toRows} moves every running row into a cache row of its own.
 */
final class GroupDecoding implements DecodeLayout {
    /** Sharing is used when padding the groups to the largest one adds at most a quarter more slots. */
    static boolean suits(int groups, int largest, int rows) {
        return groups < rows && (long) groups * largest * 4 <= 5L * rows;
    }

    private final int k;
    private final int promptWidth;
    private final List<int[]> members; // per group: the request in each slot, -1 for none or finished
    private final List<boolean[]> promptValid; // per group: which of the prompt's promptWidth keys are real
    private final List<LoraAdapter> adapters; // per group
    private int steps;

    /**
     * @param source   the group of each request
     * @param groups    how many groups
     * @param valid     the prompt keys' validity of each group (left padding), as prefilled
     * @param adapters  each group's adapter
     */
    GroupDecoding(int[] source, int groups, boolean[][] valid, List<LoraAdapter> adapters) {
        int[] size = new int[groups];
        for (int g : source) {
            size[g]++;
        }
        this.k = Arrays.stream(size).max().orElseThrow();
        this.promptWidth = valid[0].length;
        this.members = new ArrayList<>();
        this.promptValid = new ArrayList<>(Arrays.asList(valid));
        this.adapters = new ArrayList<>(adapters);
        int[] filled = new int[groups];
        for (int g = 0; g < groups; g++) {
            int[] slots = new int[k];
            Arrays.fill(slots, -1);
            members.add(slots);
        }
        for (int r = 0; r < source.length; r++) {
            members.get(source[r])[filled[source[r]]++] = r;
        }
    }

    /**
     * Positions the group cache needs: the prompt and K per step, for as many steps as the layout can last (see
     * {@link #worthKeeping}) or {@code maxNew}, whichever is fewer.
     */
    static long capacity(int promptWidth, int k, int maxNew) {
        long steps = maxNew;
        if (k > 2) {
            steps = Math.min(steps, promptWidth / (k - 2) + 1);
        }
        return promptWidth + k * steps;
    }

    /**
     * Whether the next step should still run in the group layout: while each query's keys (the prompt and K slots
     * per step) are at most twice a row's own (the prompt and its own steps), and at least three quarters of the
     * slots still run (after {@link #drop}). Past that, the masked keys and finished slots cost more than the
     * shared prompt saves.
     */
    boolean worthKeeping() {
        long groupKeys = promptWidth + (long) k * (steps + 1);
        long rowKeys = promptWidth + steps + 1;
        int live = running().length;
        return groupKeys <= 2 * rowKeys && live * 4L >= 3L * members.size() * k;
    }

    /** Frees the slots of finished rows; a group whose slots all finished leaves the cache. */
    @Override
    public void drop(boolean[] finished, KvCache cache, NDManager tmp) {
        List<Integer> keep = new ArrayList<>();
        for (int g = 0; g < members.size(); g++) {
            int[] slots = members.get(g);
            boolean any = false;
            for (int j = 0; j < k; j++) {
                if (slots[j] >= 0 && finished[slots[j]]) {
                    slots[j] = -1;
                }
                any |= slots[j] >= 0;
            }
            if (any) {
                keep.add(g);
            }
        }
        if (keep.size() < members.size()) {
            cache.select(tmp.create(keep.stream().mapToLong(Integer::longValue).toArray()));
            List<int[]> m = new ArrayList<>();
            List<boolean[]> v = new ArrayList<>();
            List<LoraAdapter> a = new ArrayList<>();
            for (int g : keep) {
                m.add(members.get(g));
                v.add(promptValid.get(g));
                a.add(adapters.get(g));
            }
            members.clear();
            members.addAll(m);
            promptValid.clear();
            promptValid.addAll(v);
            adapters.clear();
            adapters.addAll(a);
        }
    }

    /** The running rows, in slot order. */
    @Override
    public int[] running() {
        return Arrays.stream(members.stream().flatMapToInt(Arrays::stream).toArray()).filter(r -> r >= 0).toArray();
    }

    /** One decode step of every group: slot j of group g feeds the token of the row in it. */
    @Override
    public NDArray step(DecoderModel model, KvCache cache, int[] token, long[] position, NDManager step) {
        int u = members.size();
        long[] ids = new long[u * k];
        long[] pos = new long[u * k];
        long[] live = new long[running().length];
        int l = 0;
        for (int g = 0; g < u; g++) {
            for (int j = 0; j < k; j++) {
                int r = members.get(g)[j];
                if (r >= 0) {
                    ids[g * k + j] = token[r];
                    pos[g * k + j] = position[r]++;
                    live[l++] = g * k + j;
                }
            }
        }
        int keys = (int) cache.length() + k;
        float[] bias = new float[u * k * keys];
        for (int g = 0; g < u; g++) {
            boolean[] valid = promptValid.get(g);
            for (int j = 0; j < k; j++) {
                int at = (g * k + j) * keys;
                for (int x = 0; x < keys; x++) {
                    boolean ok = x < promptWidth ? valid[x] : (x - promptWidth) % k == j;
                    bias[at + x] = ok ? 0f : Inputs.MASKED;
                }
            }
        }
        LoraRows rows = LoraRows.of(adapters);
        NDArray logits = model.forward(step.create(ids, new Shape(u, k)), step.create(pos, new Shape(u, k)),
                step.create(bias, new Shape(u, 1, k, keys)), cache, rows.none() ? null : rows);
        steps++;
        return logits.reshape(u * k, -1).get(step.create(live));
    }

    /**
     * Moves every running row into a cache row of its own, holding its prompt and its own steps' keys (room for
     * {@code capacity} positions), in {@link #running()} order.
     *
     * @param requestAdapters every request's adapter
     */
    RowDecoding toRows(KvCache cache, long capacity, NDManager tmp, List<LoraAdapter> requestAdapters) {
        int[] running = running();
        int width = promptWidth + steps;
        long[] rows = new long[running.length];
        long[] times = new long[running.length * width];
        boolean[][] valid = new boolean[running.length][];
        int l = 0;
        for (int g = 0; g < members.size(); g++) {
            for (int j = 0; j < k; j++) {
                if (members.get(g)[j] < 0) {
                    continue;
                }
                rows[l] = g;
                for (int x = 0; x < width; x++) {
                    times[l * width + x] = x < promptWidth ? x : promptWidth + (long) k * (x - promptWidth) + j;
                }
                valid[l] = Arrays.copyOf(promptValid.get(g), width);
                Arrays.fill(valid[l], promptWidth, width, true);
                l++;
            }
        }
        cache.gather(tmp.create(rows), tmp.create(times, new Shape(running.length, width)), capacity);
        return new RowDecoding(running, valid, requestAdapters);
    }
}

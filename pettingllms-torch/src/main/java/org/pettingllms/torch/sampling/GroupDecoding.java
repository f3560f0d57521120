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

    /** The largest number of requests in one group; {@code source[r]} is request r's group. */
    static int largest(int[] source, int groups) {
        int[] size = new int[groups];
        for (int g : source) {
            size[g]++;
        }
        return Arrays.stream(size).max().orElse(0);
    }

    /**
     * One shared prompt's cache row.
     *
     * @param slots       the request in each slot, -1 for none or finished
     * @param promptValid which of the prompt's promptWidth keys are real (left padding masked)
     */
    private record Group(int[] slots, boolean[] promptValid, LoraAdapter adapter) {
        boolean running() {
            return Arrays.stream(slots).anyMatch(r -> r >= 0);
        }
    }

    private final int k;
    private final int promptWidth;
    private final List<Group> groups = new ArrayList<>(); // in cache row order
    private int steps;

    /**
     * @param source   the group of each request
     * @param valid    the prompt keys' validity of each group (left padding), as prefilled
     * @param adapters each group's adapter
     */
    GroupDecoding(int[] source, boolean[][] valid, List<LoraAdapter> adapters) {
        this.k = largest(source, valid.length);
        this.promptWidth = valid[0].length;
        int[] filled = new int[valid.length];
        for (int g = 0; g < valid.length; g++) {
            int[] slots = new int[k];
            Arrays.fill(slots, -1);
            groups.add(new Group(slots, valid[g], adapters.get(g)));
        }
        for (int r = 0; r < source.length; r++) {
            groups.get(source[r]).slots()[filled[source[r]]++] = r;
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
        return groupKeys <= 2 * rowKeys && live * 4L >= 3L * groups.size() * k;
    }

    /** Frees the slots of finished rows; a group whose slots all finished leaves the cache. */
    @Override
    public void drop(FinishReason[] finish, KvCache cache, NDManager tmp) {
        for (Group g : groups) {
            for (int j = 0; j < k; j++) {
                if (g.slots()[j] >= 0 && finish[g.slots()[j]] != null) {
                    g.slots()[j] = -1;
                }
            }
        }
        long[] keep = IntStream.range(0, groups.size())
                .filter(g -> groups.get(g).running())
                .asLongStream()
                .toArray();
        if (keep.length < groups.size()) {
            cache.select(tmp.create(keep));
            groups.removeIf(g -> !g.running());
        }
    }

    /** The running rows, in slot order. */
    @Override
    public int[] running() {
        return groups.stream()
                .flatMapToInt(g -> Arrays.stream(g.slots()))
                .filter(r -> r >= 0)
                .toArray();
    }

    /** One decode step of every group: slot j of group g feeds the token of the row in it. */
    @Override
    public NDArray step(DecoderModel model, KvCache cache, int[] token, long[] position, NDManager step) {
        int u = groups.size();
        long[] ids = new long[u * k];
        long[] pos = new long[u * k];
        long[] live = new long[u * k];
        int l = 0;
        for (int g = 0; g < u; g++) {
            for (int j = 0; j < k; j++) {
                int r = groups.get(g).slots()[j];
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
            boolean[] valid = groups.get(g).promptValid();
            for (int j = 0; j < k; j++) {
                int at = (g * k + j) * keys;
                for (int x = 0; x < keys; x++) {
                    boolean ok = x < promptWidth ? valid[x] : (x - promptWidth) % k == j;
                    bias[at + x] = ok ? 0f : Inputs.MASKED;
                }
            }
        }
        NDArray logits = model.forward(
                step.create(ids, new Shape(u, k)),
                step.create(pos, new Shape(u, k)),
                step.create(bias, new Shape(u, 1, k, keys)),
                cache,
                Generator.rows(groups.stream().map(Group::adapter).toList()));
        steps++;
        return logits.reshape(u * k, -1).get(step.create(Arrays.copyOf(live, l)));
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
        for (int g = 0; g < groups.size(); g++) {
            for (int j = 0; j < k; j++) {
                if (groups.get(g).slots()[j] < 0) {
                    continue;
                }
                rows[l] = g;
                for (int x = 0; x < width; x++) {
                    times[l * width + x] = x < promptWidth ? x : promptWidth + (long) k * (x - promptWidth) + j;
                }
                valid[l] = Arrays.copyOf(groups.get(g).promptValid(), width);
                Arrays.fill(valid[l], promptWidth, width, true);
                l++;
            }
        }
        cache.gather(tmp.create(rows), tmp.create(times, new Shape(running.length, width)), capacity);
        return new RowDecoding(running, valid, requestAdapters);
    }
}

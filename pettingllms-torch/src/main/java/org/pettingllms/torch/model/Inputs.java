package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Model inputs for a batch of token sequences of different lengths, left-padded: ids, positions (counting only
 * real tokens, so a padded row sees the same positions as alone) and the additive attention mask.
 */
public final class Inputs {
    /** The additive mask value of a forbidden key; finite so that an all-masked (padding) row stays finite. */
    public static final float MASKED = -1e9f;

    private Inputs() {}

    /** ids, positions and mask of a prefill; {@code valid[b][s]} is filled with the key validity. */
    public record Batch(NDArray ids, NDArray positions, NDArray bias, boolean[][] valid, int width) {}

    public static Batch leftPadded(NDManager m, List<int[]> rows, int padId) {
        int b = rows.size();
        int width = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        long[] ids = new long[b * width];
        long[] pos = new long[b * width];
        boolean[][] valid = new boolean[b][width];
        for (int r = 0; r < b; r++) {
            int[] row = rows.get(r);
            int pad = width - row.length;
            for (int s = 0; s < width; s++) {
                boolean real = s >= pad;
                valid[r][s] = real;
                ids[r * width + s] = real ? row[s - pad] : padId;
                pos[r * width + s] = real ? s - pad : 0;
            }
        }
        Shape shape = new Shape(b, width);
        return new Batch(m.create(ids, shape), m.create(pos, shape), causalBias(m, valid, width, 0), valid, width);
    }

    /**
     * The first row of each distinct key, in first-seen order; {@code group[i]} is the place among them of row i's
     * key. Rows with equal keys (the same prompt) run one prompt pass.
     */
    public static int[] firstOfEach(List<?> keys, int[] group) {
        Map<Object, Integer> seen = new HashMap<>();
        int[] first = new int[keys.size()];
        int distinct = 0;
        for (int i = 0; i < keys.size(); i++) {
            Integer at = seen.putIfAbsent(keys.get(i), distinct);
            if (at == null) {
                at = distinct;
                first[distinct++] = i;
            }
            group[i] = at;
        }
        return Arrays.copyOf(first, distinct);
    }

    /**
     * Mask [B, 1, T, S] for T new queries after {@code past} cached keys: query t sees key s when
     * {@code s <= past + t} and key s is a real token.
     */
    public static NDArray causalBias(NDManager m, boolean[][] valid, int t, int past) {
        int b = valid.length;
        int s = past + t;
        float[] bias = new float[b * t * s];
        for (int r = 0; r < b; r++) {
            for (int q = 0; q < t; q++) {
                for (int k = 0; k < s; k++) {
                    boolean ok = k <= past + q && valid[r][k];
                    bias[(r * t + q) * s + k] = ok ? 0f : MASKED;
                }
            }
        }
        return m.create(bias, new Shape(b, 1, t, s));
    }
}

package org.pettingllms.torch.family.qwen25vl;

import java.util.List;

/**
 * Qwen2.5-VL's multimodal rotary positions ({@code get_rope_index}): three ids per token (temporal, height, width).
 * A text token has the same id on all three, one more than the largest id before it. An image's tokens (its merged
 * 2 x 2 patch blocks, in row-major order) start where the text would continue and add the block's time, row and
 * column on the three axes (time is 0 for a still image), so the text after an image resumes past the largest of
 * them. The ids therefore end below the token count by {@link Positions#delta}, which decoding adds to the cache
 * position of every later token.
 */
public final class RopeIndex {
    private RopeIndex() {}

    /**
     * @param ids   [3][T] position ids per axis
     * @param delta the last id + 1 - T: the token at index i >= T (decoding) has position i + delta on every axis
     */
    public record Positions(long[][] ids, long delta) {}

    /**
     * Positions of one sequence whose images appear, in order, as runs of {@code imageToken} of length
     * {@code gridT * gridH * gridW / merge^2}.
     *
     * @param promptLength how many leading tokens are the prompt: placeholders after it (a sampled id) are text
     * @param grids        {t, h, w} patch grids of the images in the order they appear
     */
    public static Positions of(int[] tokens, int promptLength, int imageToken, List<int[]> grids, int merge) {
        int n = tokens.length;
        long[][] pos = new long[3][n];
        long next = 0; // one more than the largest id so far
        int image = 0;
        int i = 0;
        while (i < n) {
            if (tokens[i] != imageToken || i >= promptLength) {
                pos[0][i] = pos[1][i] = pos[2][i] = next++;
                i++;
                continue;
            }
            if (image >= grids.size()) {
                throw new IllegalArgumentException(
                        "the prompt has more image placeholders than the " + grids.size() + " images given");
            }
            int[] g = grids.get(image++);
            int gh = g[1] / merge;
            int gw = g[2] / merge;
            int count = g[0] * gh * gw;
            for (int j = i; j < i + count; j++) {
                if (j >= Math.min(n, promptLength) || tokens[j] != imageToken) {
                    throw new IllegalArgumentException("image " + image + " needs " + count
                            + " consecutive placeholder tokens in the prompt, found " + (j - i));
                }
            }
            long start = next;
            long max = start;
            for (int t = 0; t < g[0]; t++) {
                for (int y = 0; y < gh; y++) {
                    for (int x = 0; x < gw; x++) {
                        // a still image's frames share time 0 (second_per_grid_t = 0 for images)
                        pos[0][i] = start;
                        pos[1][i] = start + y;
                        pos[2][i] = start + x;
                        max = Math.max(max, Math.max(pos[1][i], pos[2][i]));
                        i++;
                    }
                }
            }
            next = max + 1;
        }
        if (image != grids.size()) {
            throw new IllegalArgumentException(
                    grids.size() + " images were given, the prompt has placeholders for " + image);
        }
        return new Positions(pos, next - n);
    }
}

package org.pettingllms.torch.family.qwen25vl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.List;
import org.pettingllms.torch.model.PositionScheme;

/**
 * Qwen2.5-VL's M-RoPE: each of the head's {@code head_dim / 2} rotary frequencies turns with one of three position
 * axes (temporal, height, width), by {@code mrope_section}. Positions come as [3, B, T] ({@link RopeIndex}); [B, T]
 * means the three axes are equal, which for a text-only prompt is one-dimensional RoPE.
 */
final class MRope implements PositionScheme {
    /** For each frequency, the axis (0 t, 1 h, 2 w) it turns with. */
    private final long[] axes;

    /** @param sections how many frequencies follow each axis, in order; they add up to head_dim / 2 */
    MRope(List<Integer> sections) {
        axes = new long[sections.stream().mapToInt(Integer::intValue).sum()];
        // apply_multimodal_rotary_pos_emb splits cat(freqs, freqs) into the sections twice over: frequency j of
        // either half turns with the axis whose section holds j
        for (int j = 0, axis = 0, end = 0; j < axes.length; j++) {
            while (j >= end) {
                end += sections.get(axis++);
            }
            axes[j] = axis - 1;
        }
    }

    @Override
    public NDArray angles(NDArray positions, long tokens) {
        NDArray p = positions.toType(DataType.FLOAT32, false);
        if (positions.getShape().dimension() == 2) {
            return p.reshape(1, tokens);
        }
        if (positions.getShape().get(0) != 3) {
            throw new IllegalArgumentException("M-RoPE positions are [3, B, T], got " + positions.getShape());
        }
        return p.reshape(3, tokens).get(new NDIndex("{}", p.getManager().create(axes)));
    }
}

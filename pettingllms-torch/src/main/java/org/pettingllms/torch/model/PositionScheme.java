package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.DataType;

/**
 * Which position each rotary frequency turns with: the one place where a decoder's position scheme lives. A family
 * gives its scheme to {@link DecoderModel} when it builds the decoder ({@link FamilyParts}); the decoder's rotary
 * angles are then {@code inv_freq x angles(positions)}.
 */
@FunctionalInterface
public interface PositionScheme {
    /**
     * Each frequency's position over the {@code tokens} = B*T tokens of a pass, float32, in {@code positions}'
     * scope: [1, N] when every frequency reads the same position, or [head_dim / 2, N] with a row per frequency.
     *
     * @param positions the positions the caller gave the decoder: [B, T] (int64), or the family's own layout
     */
    NDArray angles(NDArray positions, long tokens);

    /** One position per token, shared by every frequency: RoPE as Llama, Qwen2 and Qwen3 use it. */
    PositionScheme PER_TOKEN =
            (positions, tokens) -> positions.toType(DataType.FLOAT32, false).reshape(1, tokens);
}

package org.pettingllms.torch.sampling;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.KvCache;

/**
 * How the running rows of a generation sit in its KV cache: a cache row each ({@link RowDecoding}) or one per
 * shared prompt ({@link GroupDecoding}).
 */
interface DecodeLayout {
    /** The running rows, in the order of {@link #step}'s logits. */
    int[] running();

    /** Takes the rows that finished ({@code finish[r]} set) out of the layout, and their cache rows out of the cache. */
    void drop(FinishReason[] finish, KvCache cache, NDManager tmp);

    /**
     * One decode step of every running row r: feeds {@code token[r]} at {@code position[r]} (then advanced) and
     * returns the next-token logits [L, V] in {@link #running()} order.
     */
    NDArray step(DecoderModel model, KvCache cache, int[] token, long[] position, NDManager step);
}

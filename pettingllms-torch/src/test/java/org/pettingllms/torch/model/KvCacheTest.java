package org.pettingllms.torch.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.Torch;

/**
 * The cache writes each step's keys and values by adding them onto positions that hold zeros (one slice a cut, no
 * index over every axis): what it returns must be exactly what was appended, in order, also after rows left the batch.
 */
@Tag("engine")
class KvCacheTest {
    /** Keys transposed [B=2, kvH=1, hd=2, T] and values [2, 1, T, 2] whose entries name row, position and slot. */
    private static NDArray[] step(NDManager m, int from, int t) {
        float[] k = new float[2 * 2 * t];
        float[] v = new float[2 * t * 2];
        for (int b = 0; b < 2; b++) {
            for (int d = 0; d < 2; d++) {
                for (int s = 0; s < t; s++) {
                    float value = 100 * (b + 1) + 10 * (from + s) + d + 1;
                    k[(b * 2 + d) * t + s] = value;
                    v[(b * t + s) * 2 + d] = -value;
                }
            }
        }
        return new NDArray[] {m.create(k, new Shape(2, 1, 2, t)), m.create(v, new Shape(2, 1, t, 2))};
    }

    @Test
    void returnsExactlyWhatWasAppendedAcrossStepsAndAfterRowsLeave() {
        try (NDManager m = Torch.engine().newBaseManager(TestEngine.device())) {
            KvCache cache = new KvCache(m, 1, 8);
            NDArray[] first = step(m, 0, 3);
            cache.append(0, first[0], first[1]);
            NDArray[] second = step(m, 3, 1);
            KeyValues.Attended kv = cache.append(0, second[0], second[1]);
            assertThat(cache.length()).isEqualTo(4);
            NDArray expectedK = first[0].concat(second[0], 3);
            NDArray expectedV = first[1].concat(second[1], 2);
            assertThat(kv.keysT().toFloatArray()).containsExactly(expectedK.toFloatArray());
            assertThat(kv.values().toFloatArray()).containsExactly(expectedV.toFloatArray());

            cache.select(m.create(new long[] {1})); // row 0 finished; row 1 goes on alone
            NDArray[] third = step(m, 4, 2);
            KeyValues.Attended after =
                    cache.append(0, third[0].get("1:2"), third[1].get("1:2")); // row 1's keys of positions 4 and 5
            assertThat(after.keysT().getShape()).isEqualTo(new Shape(1, 1, 2, 6));
            assertThat(after.keysT().toFloatArray())
                    .containsExactly(
                            expectedK.get("1:2").concat(third[0].get("1:2"), 3).toFloatArray());
            assertThat(after.values().toFloatArray())
                    .containsExactly(
                            expectedV.get("1:2").concat(third[1].get("1:2"), 2).toFloatArray());

            NDArray[] tooMany = step(m, 6, 3);
            assertThatThrownBy(() -> cache.append(0, tooMany[0].get("1:2"), tooMany[1].get("1:2")))
                    .hasMessageContaining("KV cache full: 8 positions");
        }
    }
}

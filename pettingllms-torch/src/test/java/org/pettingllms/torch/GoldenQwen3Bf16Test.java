package org.pettingllms.torch;

import ai.djl.ndarray.types.DataType;
import org.junit.jupiter.api.Tag;

/** {@link GoldenQwen3Test} with the weights held in bfloat16, on every run: the bf16 tolerances. */
@Tag("engine")
class GoldenQwen3Bf16Test extends GoldenQwen3Test {
    @Override
    DataType dtype() {
        return DataType.BFLOAT16;
    }
}

package org.pettingllms.torch.io;

import java.util.Arrays;

/**
 * A host tensor in float32, row-major: what safetensors files hold once decoded. Arrays are owned by the record;
 * callers do not modify them.
 */
public record Tensor(long[] shape, float[] data) {
    public Tensor {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        if (n != data.length) {
            throw new IllegalArgumentException(
                    "shape " + Arrays.toString(shape) + " needs " + n + " values, got " + data.length);
        }
    }

    public long numel() {
        return data.length;
    }
}

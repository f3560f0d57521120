package org.pettingllms.core.data;

import java.util.Arrays;

/** An immutable sequence of floats (per-token log-probabilities). Value semantics. */
public final class FloatSeq {
    private static final FloatSeq EMPTY = new FloatSeq(new float[0]);
    private final float[] values;

    private FloatSeq(float[] values) {
        this.values = values;
    }

    public static FloatSeq of(float... values) {
        return values.length == 0 ? EMPTY : new FloatSeq(values.clone());
    }

    public static FloatSeq empty() {
        return EMPTY;
    }

    public int size() {
        return values.length;
    }

    public float get(int index) {
        return values[index];
    }

    public double sum() {
        double s = 0;
        for (float v : values) {
            s += v;
        }
        return s;
    }

    /** A fresh copy; callers may mutate it. */
    public float[] toArray() {
        return values.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FloatSeq other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return Arrays.toString(values);
    }
}

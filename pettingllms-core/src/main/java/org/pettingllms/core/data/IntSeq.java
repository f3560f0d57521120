package org.pettingllms.core.data;

import java.util.Arrays;

/** An immutable sequence of ints (token ids). Value semantics: equal contents mean equal sequences. */
public final class IntSeq {
    private static final IntSeq EMPTY = new IntSeq(new int[0]);
    private final int[] values;

    private IntSeq(int[] values) {
        this.values = values;
    }

    public static IntSeq of(int... values) {
        return values.length == 0 ? EMPTY : new IntSeq(values.clone());
    }

    public static IntSeq empty() {
        return EMPTY;
    }

    public int size() {
        return values.length;
    }

    public int get(int index) {
        return values[index];
    }

    /** A fresh copy; callers may mutate it. */
    public int[] toArray() {
        return values.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntSeq other && Arrays.equals(values, other.values);
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

package org.pettingllms.envs.data;

import java.util.List;
import java.util.function.Function;

/** Finds a dataset item by its text inside a prompt (the oracle policies' way of knowing which problem it is). */
public final class ItemLookup {
    private ItemLookup() {}

    /**
     * The item whose key occurs in {@code text}; when several do (one question can contain another), the longest
     * key wins. Null when none occurs.
     */
    public static <T> T in(String text, List<T> items, Function<T, String> key) {
        T best = null;
        int bestLength = -1;
        for (T item : items) {
            String k = key.apply(item);
            if (k.length() > bestLength && text.contains(k)) {
                best = item;
                bestLength = k.length();
            }
        }
        return best;
    }
}

package org.pettingllms.core.util;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.random.RandomGenerator;

/** Seeded random permutations: the JDK's shuffle (Fisher-Yates), so one generator state gives one order. */
public final class Permutations {
    private Permutations() {}

    /**
     * A uniformly random permutation of {@code 0..n-1}, drawn as {@link Collections#shuffle(List, RandomGenerator)}
     * draws it: for i from n down to 2, swap position i-1 with {@code rng.nextInt(i)}.
     */
    public static int[] of(int n, RandomGenerator rng) {
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, rng);
        return order.stream().mapToInt(Integer::intValue).toArray();
    }
}

package org.pettingllms.envs.data;

import java.util.function.Function;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.util.Seeds;

/**
 * Keeps a generator's train and test rows apart by content as well as by seed: a row belongs to the test split iff a
 * hash of its content (its question) is odd. The row of a seed is drawn from the seed, and re-drawn from seeds
 * derived from it until its content falls in the seed's split ({@link SeededProblems}: seeds from
 * {@code TEST_OFFSET} on are the test split), so no test question is ever a training question.
 */
public final class ContentSplit {
    private static final int MAX_DRAWS = 1000;

    private ContentSplit() {
    }

    /** A generator's draw: the row of a seed (null when that seed makes none); {@code idSeed} names the row. */
    @FunctionalInterface
    public interface Draw<T> {
        T draw(long seed, long idSeed);
    }

    /** The row of {@code seed} in its split. */
    public static <T> T row(long seed, Draw<T> draw, Function<T, String> content) {
        boolean test = seed >= SeededProblems.TEST_OFFSET;
        long s = seed;
        for (int attempt = 0; attempt < MAX_DRAWS; attempt++) {
            T row = draw.draw(s, seed);
            if (row != null && inTest(content.apply(row)) == test) {
                return row;
            }
            s = Seeds.derive(seed, "split", attempt);
        }
        throw new IllegalStateException("no " + (test ? "test" : "train") + " row for seed " + seed);
    }

    /** Whether content belongs to the test split. */
    public static boolean inTest(String content) {
        return (Seeds.mix(content.hashCode()) & 1) == 1;
    }
}

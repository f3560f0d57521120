package org.pettingllms.envs.data;

import java.util.function.Function;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.util.Seeds;

/**
 * Keeps a generator's splits apart by content as well as by seed: a row's split is decided by a hash of its content
 * (its question, its board): even hashes train, odd ones are held out, half of those for validation and half for
 * test ({@link #splitOf}). The row of a seed is drawn from the seed, and re-drawn from seeds derived from it until
 * its content falls in the seed's split ({@link SeededProblems#splitOf}), so no held-out question is ever a training
 * question and no test question is a validation question.
 */
public final class ContentSplit {
    private static final int MAX_DRAWS = 1000;

    private ContentSplit() {}

    /** A generator's draw: the row of a seed (null when that seed makes none); {@code idSeed} names the row. */
    @FunctionalInterface
    public interface Draw<T> {
        T draw(long seed, long idSeed);
    }

    /** The row of {@code seed} in its split. */
    public static <T> T row(long seed, Draw<T> draw, Function<T, String> content) {
        Split split = SeededProblems.splitOf(seed);
        long s = seed;
        for (int attempt = 0; attempt < MAX_DRAWS; attempt++) {
            T row = draw.draw(s, seed);
            if (row != null && splitOf(content.apply(row)) == split) {
                return row;
            }
            s = Seeds.derive(seed, "split", attempt);
        }
        throw new IllegalStateException("no " + split.label() + " row for seed " + seed);
    }

    /**
     * The split that content belongs to: stable across JVMs (String.hashCode is specified). The train half is the
     * one the two-split layout of earlier versions trained on, so the shipped base models, made from its rows, never
     * saw a validation or test row.
     */
    public static Split splitOf(String content) {
        long h = Seeds.mix(content.hashCode());
        if ((h & 1) == 0) {
            return Split.TRAIN;
        }
        return (h & 2) == 0 ? Split.VALIDATION : Split.TEST;
    }
}

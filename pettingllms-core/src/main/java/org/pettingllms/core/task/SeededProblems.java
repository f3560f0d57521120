package org.pettingllms.core.task;

import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.util.Seeds;

/**
 * Problems of generated tasks: problem {@code i} of a split, for run seed {@code s}, is built from the generator
 * seed {@link #generatorSeed}{@code (task, split, s, i)}. That seed is a keyed permutation of {@code (s, i)}, so two
 * run seeds share no problem (of any split) by construction, and consecutive problems are unrelated. Each split
 * owns a range of generator seeds ({@code [k 2^61, (k+1) 2^61)} for split number k), so a generator can tell a
 * problem's split from its seed ({@link #splitOf}) and keep the splits apart by content too (reference defect 7:
 * train and test puzzles overlapped).
 *
 * @param runSeed the run's seed, {@code 0 <= runSeed <= MAX_RUN_SEED}
 */
public record SeededProblems(String taskId, long runSeed) implements ProblemSource {
    private static final int SPLIT_SHIFT = 61;
    private static final long MASK = (1L << SPLIT_SHIFT) - 1;
    /** Run seeds fill the bits above a problem's index: 29 bits of run seed, 32 of index, 61 in all. */
    public static final long MAX_RUN_SEED = RunConfig.Run.MAX_SEED;

    public static final long MAX_INDEX = (1L << 32) - 1;

    public SeededProblems {
        if (runSeed < 0 || runSeed > MAX_RUN_SEED) {
            throw new IllegalArgumentException(
                    "run seed " + runSeed + " is out of range: expected 0 to " + MAX_RUN_SEED);
        }
    }

    @Override
    public List<Problem> problems(Split split, long from, int count) {
        if (from < 0 || count < 0 || from > MAX_INDEX || count - 1 > MAX_INDEX - from) {
            throw new IllegalArgumentException(
                    "problems " + from + " to " + (from + count - 1) + " are out of range: expected 0 to " + MAX_INDEX);
        }
        List<Problem> out = new ArrayList<>(count);
        for (long i = from; i < from + count; i++) {
            out.add(Problem.generated(
                    taskId + "/" + split.label() + "/" + i, generatorSeed(taskId, split, runSeed, i)));
        }
        return out;
    }

    /**
     * The generator seed of problem {@code index} of {@code split} for {@code runSeed}: {@code split << 61} plus a
     * bijection of {@code (runSeed << 32) | index} on 61 bits, keyed by task and split. Every step of the bijection
     * is invertible modulo 2^61 (xor with a key, xor with a right shift, multiplication by an odd number), so
     * distinct (run seed, index) pairs never meet.
     */
    public static long generatorSeed(String taskId, Split split, long runSeed, long index) {
        long x = ((runSeed << 32) | index) & MASK;
        x ^= Seeds.derive(0x5EEDL, taskId, split.label()) & MASK;
        x ^= x >>> 31;
        x = (x * 0xBF58476D1CE4E5B9L) & MASK;
        x ^= x >>> 29;
        x = (x * 0x94D049BB133111EBL) & MASK;
        x ^= x >>> 32;
        return ((long) split.ordinal() << SPLIT_SHIFT) | x;
    }

    /** The split whose range holds a generator seed made by {@link #generatorSeed}. */
    public static Split splitOf(long generatorSeed) {
        int k = (int) (generatorSeed >>> SPLIT_SHIFT);
        if (generatorSeed < 0 || k >= Split.values().length) {
            throw new IllegalArgumentException("generator seed " + generatorSeed + " belongs to no split");
        }
        return Split.values()[k];
    }
}

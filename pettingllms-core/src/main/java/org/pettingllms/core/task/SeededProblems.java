package org.pettingllms.core.task;

import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.data.Problem;

/**
 * Problems of generated tasks: problem {@code i} of a split is built from a seed. Train seeds are
 * {@code [0, 2^40)} and test seeds {@code [2^40, 2^41)}, so the two splits never share an instance
 * (reference defect 7: train and test puzzles overlapped).
 */
public record SeededProblems(String taskId, long baseSeed) implements ProblemSource {
    public static final long TEST_OFFSET = 1L << 40;

    @Override
    public List<Problem> problems(Split split, long from, int count) {
        if (from < 0 || count < 0) {
            throw new IllegalArgumentException("from and count must be >= 0");
        }
        List<Problem> out = new ArrayList<>(count);
        for (long i = from; i < from + count; i++) {
            long seed = Math.floorMod(baseSeed + i, TEST_OFFSET) + (split == Split.TEST ? TEST_OFFSET : 0);
            String id = taskId + "/" + split.name().toLowerCase() + "/" + i;
            out.add(Problem.generated(id, seed));
        }
        return out;
    }
}

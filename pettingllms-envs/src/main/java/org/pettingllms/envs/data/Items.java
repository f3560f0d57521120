package org.pettingllms.envs.data;

import java.util.List;
import java.util.function.LongFunction;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.DatasetProblems;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.SeededProblems;

/**
 * Where a dataset task's rows come from: files (train and test rows read once) or a generator (row {@code i} of a
 * split built from a seed, as the planning games build boards). The task's workflow is the same for both.
 *
 * @param <T> the row type (a math question, a programming problem)
 */
public sealed interface Items<T> {
    /** The problems of a run with this seed. */
    ProblemSource problems(String taskId, long seed);

    /** The row of a problem made by {@link #problems}. */
    T item(Problem problem);

    /** Rows read from files; the problems carry their rows. */
    record Listed<T>(List<T> train, List<T> test, Class<T> type) implements Items<T> {
        public Listed {
            train = List.copyOf(train);
            test = List.copyOf(test);
        }

        @Override
        public ProblemSource problems(String taskId, long seed) {
            return new DatasetProblems<>(taskId, train, test, seed);
        }

        @Override
        public T item(Problem problem) {
            return DatasetProblems.item(problem, type);
        }
    }

    /**
     * Generated rows: a problem carries only its seed ({@link SeededProblems}: the splits' seed ranges are disjoint),
     * and the generator builds the row from it. A generator keeps the splits apart by content as well
     * ({@link ContentSplit}: seeds of two splits must not make the same row).
     *
     * @param name      the generator's name, as configs write it
     * @param generator the row of a seed; deterministic
     */
    record Generated<T>(String name, LongFunction<T> generator) implements Items<T> {
        @Override
        public ProblemSource problems(String taskId, long seed) {
            return new SeededProblems(taskId, seed);
        }

        @Override
        public T item(Problem problem) {
            return generator.apply(problem.seed());
        }
    }
}

package org.pettingllms.core.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.util.Seeds;

/**
 * Problems of dataset tasks. The train split is read in epochs, each a fresh permutation drawn from the run seed
 * (so a resumed run sees the same order); the test split is read in file order, once (positions past its end
 * are not wrapped, so validation never counts a problem twice). Each problem carries its row as the field
 * {@code item}.
 *
 * @param <T> the row type of the task (a math question, a programming problem)
 */
public final class DatasetProblems<T> implements ProblemSource {
    public static final String ITEM = "item";

    private final String taskId;
    private final List<T> train;
    private final List<T> test;
    private final long seed;

    /** @param train may be empty for an evaluation-only task; asking it for train problems is then an error */
    public DatasetProblems(String taskId, List<T> train, List<T> test, long seed) {
        this.taskId = taskId;
        this.train = List.copyOf(train);
        this.test = List.copyOf(test);
        this.seed = seed;
    }

    @Override
    public List<Problem> problems(Split split, long from, int count) {
        if (from < 0 || count < 0) {
            throw new IllegalArgumentException("from and count must be >= 0");
        }
        List<Problem> out = new ArrayList<>(count);
        if (split == Split.TEST) {
            for (long i = from; i < Math.min(from + count, test.size()); i++) {
                out.add(new Problem(taskId + "/test/" + i, i, Map.of(ITEM, test.get((int) i))));
            }
            return out;
        }
        if (train.isEmpty()) {
            throw new ConfigException("config key 'task.options.train': no training data for " + taskId
                    + "; set it to a dataset file");
        }
        int[] order = null;
        long epochOfOrder = -1;
        for (long i = from; i < from + count; i++) {
            long epoch = i / train.size();
            if (epoch != epochOfOrder) {
                order = permutation(train.size(), Seeds.derive(seed, "epoch", epoch));
                epochOfOrder = epoch;
            }
            out.add(new Problem(taskId + "/train/" + i, i, Map.of(ITEM, train.get(order[(int) (i % train.size())]))));
        }
        return out;
    }

    /** The row of a problem made by this source. */
    public static <T> T item(Problem p, Class<T> type) {
        Object o = p.fields().get(ITEM);
        if (!type.isInstance(o)) {
            throw new IllegalArgumentException("problem " + p.id() + " carries no " + type.getSimpleName());
        }
        return type.cast(o);
    }

    private static int[] permutation(int n, long seed) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        SplittableRandom rng = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}

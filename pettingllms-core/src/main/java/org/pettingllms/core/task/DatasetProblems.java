package org.pettingllms.core.task;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.util.Permutations;
import org.pettingllms.core.util.Seeds;

/**
 * Problems of dataset tasks. The validation split is held out of the train file: the rows whose position draws a
 * tenth ({@link #isValidationRow}; fixed, whatever the run seed), in file order; training never sees them. The
 * train split is the other rows, read in epochs, each a fresh permutation drawn from the run seed (so a resumed run
 * sees the same order); the test split is the test file, in file order, read once (positions past the end of a
 * held-out split are not wrapped, so an evaluation never counts a problem twice). Each problem carries its row as
 * the field {@code item}.
 *
 * @param <T> the row type of the task (a math question, a programming problem)
 */
public final class DatasetProblems<T> implements ProblemSource {
    public static final String ITEM = "item";

    private final String taskId;
    private final List<T> train = new ArrayList<>();
    private final List<T> validation = new ArrayList<>();
    private final List<T> test;
    private final long seed;

    /**
     * @param trainFile the train file's rows, validation rows included; may be empty for an evaluation-only task
     *                  (asking it for train or validation problems is then an error)
     */
    public DatasetProblems(String taskId, List<T> trainFile, List<T> test, long seed) {
        this.taskId = taskId;
        for (int i = 0; i < trainFile.size(); i++) {
            (isValidationRow(i) ? validation : train).add(trainFile.get(i));
        }
        this.test = List.copyOf(test);
        this.seed = seed;
    }

    /** Whether row {@code i} of a train file is held out for validation: a fixed draw of one row in ten. */
    public static boolean isValidationRow(int i) {
        return Math.floorMod(Seeds.derive(0x5A11DL, "validation", i), 10) == 0;
    }

    @Override
    public List<Problem> problems(Split split, long from, int count) {
        if (from < 0 || count < 0) {
            throw new IllegalArgumentException("from and count must be >= 0");
        }
        List<Problem> out = new ArrayList<>(count);
        if (split != Split.TRAIN) {
            List<T> rows = split == Split.TEST ? test : validation;
            if (rows.isEmpty() && count > 0 && split == Split.VALIDATION) {
                throw new ConfigException("config key 'task.options.train': no validation problems for " + taskId
                        + " (they are a tenth of the train file's rows, held out of training); set a train file, or "
                        + "evaluate on the test split");
            }
            for (long i = from; i < Math.min(from + count, rows.size()); i++) {
                out.add(new Problem(taskId + "/" + split.label() + "/" + i, i, Map.of(ITEM, rows.get((int) i))));
            }
            return out;
        }
        if (train.isEmpty()) {
            throw new ConfigException(
                    "config key 'task.options.train': no training data for " + taskId + "; set it to a dataset file");
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
        return Permutations.of(n, new SplittableRandom(seed));
    }
}

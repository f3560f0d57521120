package org.pettingllms.core.task;

import java.util.List;
import org.pettingllms.core.data.Problem;

/** Where problems come from: dataset rows or generated seeds. Deterministic for a given index. */
public interface ProblemSource {
    /** The problems of a split at positions {@code [from, from + count)} (wrapping or generating as needed). */
    List<Problem> problems(Split split, long from, int count);

    enum Split { TRAIN, TEST }
}

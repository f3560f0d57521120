package org.pettingllms.core.task;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.pettingllms.core.data.Problem;

/** Where problems come from: dataset rows or generated seeds. Deterministic for a given index. */
public interface ProblemSource {
    /** The problems of a split at positions {@code [from, from + count)} (wrapping or generating as needed). */
    List<Problem> problems(Split split, long from, int count);

    /**
     * What a split is for. {@code TRAIN}: the problems training learns from. {@code VALIDATION}: what training
     * watches and what choices (learning rate, budget, base model) are tuned on. {@code TEST}: only for claims,
     * looked at after every choice is made. The three share no problem.
     */
    enum Split {
        TRAIN,
        VALIDATION,
        TEST;

        /** The lower-case name configs, problem ids and the command line use. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The split named {@code label}, or an error that lists the names. */
        public static Split of(String label) {
            for (Split s : values()) {
                if (s.label().equals(label.trim().toLowerCase(Locale.ROOT))) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown split '" + label + "'; expected one of "
                    + Arrays.stream(values()).map(Split::label).toList());
        }
    }
}

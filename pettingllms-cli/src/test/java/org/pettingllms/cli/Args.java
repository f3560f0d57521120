package org.pettingllms.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A command line for the tests, built once so that a test states only what differs: words as they are ({@link #with}),
 * {@code --set} overrides ({@link #set}), and the sizes of a small training run ({@link #smallRun}), in the order
 * given.
 */
final class Args {
    private final List<String> words = new ArrayList<>();

    private Args() {}

    /** A command line that starts with {@code words}, e.g. the command and its config. */
    static Args of(String... words) {
        return new Args().with(words);
    }

    /** Words as they are: options, their values. */
    Args with(String... more) {
        words.addAll(List.of(more));
        return this;
    }

    /** The words of {@code more}, after these. */
    Args with(Args more) {
        words.addAll(more.words);
        return this;
    }

    /** A {@code --set} for each {@code KEY=VALUE}. */
    Args set(String... overrides) {
        for (String o : overrides) {
            words.add("--set");
            words.add(o);
        }
        return this;
    }

    /**
     * The small training run most tests make: {@code model}, written under {@code outputDir}, 2 problems a step in
     * groups of 2, validated on 2 problems, {@code maxTokens} tokens a sample in both.
     */
    Args smallRun(String model, Path outputDir, int maxTokens) {
        return set(
                "policy.model=" + model,
                "run.outputDir=" + outputDir,
                "rollout.problemsPerStep=2",
                "rollout.k=2",
                "rollout.sampling.maxTokens=" + maxTokens,
                "validation.problems=2",
                "validation.sampling.maxTokens=" + maxTokens);
    }

    /** Another command line with these words, to add to. */
    Args copy() {
        return new Args().with(this);
    }

    String[] array() {
        return words.toArray(String[]::new);
    }
}

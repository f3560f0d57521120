package org.pettingllms.envs.code;

import java.util.List;
import java.util.Objects;

/**
 * One programming problem.
 *
 * @param tests      ground-truth stdin/stdout tests (empty for function problems, which use the harness)
 * @param solution   a reference solution (a whole program), or null when the dataset has none
 * @param functional the HumanEval-style harness, or null for stdin/stdout problems
 */
public record CodeItem(String id, String question, List<TestCase> tests, String solution, Functional functional) {
    public CodeItem {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(question, "question");
        tests = List.copyOf(tests);
        if (tests.isEmpty() && functional == null) {
            throw new IllegalArgumentException("problem " + id + " has no tests");
        }
    }

    /** A stdin/stdout test. For function problems, {@code input} is a call expression and {@code output} its value. */
    public record TestCase(String input, String output) {}

    /**
     * HumanEval's harness: the program is the function, {@code testCode} defines {@code check(candidate)}.
     *
     * @param prompt     the function signature and docstring the coder completes
     * @param entryPoint the function's name
     */
    public record Functional(String prompt, String entryPoint, String testCode) {}
}

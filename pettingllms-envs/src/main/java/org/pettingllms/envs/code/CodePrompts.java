package org.pettingllms.envs.code;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * Prompts of the code team, close to PettingLLMs': the coder writes a complete program (or completes the
 * function), the tester writes test cases in the marked format. From the second turn on both see the current
 * program and its mismatches on the tester's tests (input, expected, actual). The {@code compact} style (small
 * character-level models, as the planning games and math use it) says the same in fewer characters: a header line,
 * the task, the coder's latest function (to the coder), the failed calls or how many passed, and a {@code >} cue;
 * the coder answers with the function alone, the tester with one {@code call==expected} per line.
 */
final class CodePrompts {
    static final String CODER_SYSTEM = "You are an expert Python programmer.";
    static final String TESTER_SYSTEM = "You are an expert software tester who writes precise test cases.";
    private static final int MAX_CHARS = 2000;

    private static final int MAX_COMPACT_FAILS = 3;
    private static final int MAX_COMPACT_LINE = 40;

    private CodePrompts() {}

    static Prompt compact(String taskId, CodeState s, String role) {
        StringBuilder sb = CompactPrompts.header(taskId, role)
                .append(s.item().question().strip())
                .append('\n');
        if (role.equals(CodeTask.CODER) && s.program() != null) {
            sb.append(clip(s.program().strip())).append('\n');
        }
        for (CodeRunner.Outcome o : s.mismatches()
                .subList(0, Math.min(MAX_COMPACT_FAILS, s.mismatches().size()))) {
            sb.append("fail ")
                    .append(oneLine(o.test().input()))
                    .append("==")
                    .append(oneLine(o.test().output()))
                    .append(" got ")
                    .append(oneLine(o.actual()))
                    .append('\n');
        }
        if (s.mismatches().isEmpty() && !s.tests().isEmpty() && s.program() != null) {
            sb.append("pass ").append(s.tests().size()).append('\n');
        }
        return CompactPrompts.cue(sb);
    }

    /** The first line, clipped: a compact prompt shows a value, not a traceback. */
    private static String oneLine(String text) {
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() > MAX_COMPACT_LINE ? line.substring(0, MAX_COMPACT_LINE) : line;
    }

    static Prompt coder(CodeState s) {
        CodeItem item = s.item();
        StringBuilder u = problem(s, "Complete the following Python function.\n\n");
        u.append(
                item.functional() != null
                        ? "Write the complete function (with its imports) in one ```python``` block."
                        : "Write a complete Python program that reads the input from standard input and prints the answer"
                                + " to standard output. Put it in one ```python``` block.");
        if (s.program() != null) {
            u.append(" Fix the program if the tests show it is wrong.");
        }
        return Prompt.chat(CODER_SYSTEM, u.toString());
    }

    static Prompt tester(CodeState s) {
        CodeItem item = s.item();
        StringBuilder u = problem(s, "Function to test:\n");
        u.append(
                item.functional() != null
                        ? "Write test cases: each Test Input is one call of the function, each Test Output the expected"
                                + " value as a Python literal. Use this format for each case:\n"
                        : "Write test cases: each Test Input is the exact standard input, each Test Output the exact"
                                + " expected standard output. Use this format for each case:\n");
        u.append("**Test Input:**\n```\n...\n```\n**Test Output:**\n```\n...\n```");
        return Prompt.chat(TESTER_SYSTEM, u.toString());
    }

    /**
     * What both roles read first: the function ({@code function} introduces it) or the problem, then the current
     * program and how it fares on the tester's tests.
     */
    private static StringBuilder problem(CodeState s, String function) {
        CodeItem item = s.item();
        StringBuilder u = new StringBuilder();
        if (item.functional() != null) {
            u.append(function)
                    .append("```python\n")
                    .append(item.functional().prompt())
                    .append("```\n\n");
        } else {
            u.append("Problem:\n").append(item.question()).append("\n\n");
        }
        history(u, s);
        return u;
    }

    private static void history(StringBuilder u, CodeState s) {
        if (s.program() != null) {
            u.append("Current program:\n```python\n").append(clip(s.program())).append("```\n\n");
        }
        if (!s.mismatches().isEmpty()) {
            u.append("Mismatches of the current program on the tester's tests:\n");
            for (CodeRunner.Outcome o : s.mismatches()) {
                u.append("- input: ")
                        .append(clip(o.test().input().strip()))
                        .append("\n  expected: ")
                        .append(clip(o.test().output().strip()))
                        .append("\n  actual: ")
                        .append(clip(o.actual().strip()))
                        .append("\n");
            }
            u.append("\n");
        } else if (!s.tests().isEmpty() && s.program() != null) {
            u.append("The current program passes the tester's ")
                    .append(s.tests().size())
                    .append(" tests.\n\n");
        }
    }

    private static String clip(String s) {
        return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS) + "...";
    }
}

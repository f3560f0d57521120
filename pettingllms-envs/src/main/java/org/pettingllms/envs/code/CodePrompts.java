package org.pettingllms.envs.code;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.data.CodeItem;

/**
 * Prompts of the code team, close to PettingLLMs': the coder writes a complete program (or completes the
 * function), the tester writes test cases in the marked format. From the second turn on both see the current
 * program and its mismatches on the tester's tests (input, expected, actual).
 */
final class CodePrompts {
    static final String CODER_SYSTEM = "You are an expert Python programmer.";
    static final String TESTER_SYSTEM = "You are an expert software tester who writes precise test cases.";
    private static final int MAX_CHARS = 2000;

    private CodePrompts() {
    }

    static Prompt coder(CodeState s, PromptStyle style) {
        CodeItem item = s.item();
        StringBuilder u = new StringBuilder();
        if (item.functional() != null) {
            u.append("Complete the following Python function.\n\n```python\n").append(item.functional().prompt())
                    .append("```\n\n");
        } else {
            u.append("Problem:\n").append(item.question()).append("\n\n");
        }
        history(u, s);
        u.append(item.functional() != null
                ? "Write the complete function (with its imports) in one ```python``` block."
                : "Write a complete Python program that reads the input from standard input and prints the answer"
                + " to standard output. Put it in one ```python``` block.");
        if (s.program() != null) {
            u.append(" Fix the program if the tests show it is wrong.");
        }
        return build(CODER_SYSTEM, u.toString(), style);
    }

    static Prompt tester(CodeState s, PromptStyle style) {
        CodeItem item = s.item();
        StringBuilder u = new StringBuilder();
        if (item.functional() != null) {
            u.append("Function to test:\n```python\n").append(item.functional().prompt()).append("```\n\n");
        } else {
            u.append("Problem:\n").append(item.question()).append("\n\n");
        }
        history(u, s);
        u.append(item.functional() != null
                ? "Write test cases: each Test Input is one call of the function, each Test Output the expected"
                + " value as a Python literal. Use this format for each case:\n"
                : "Write test cases: each Test Input is the exact standard input, each Test Output the exact"
                + " expected standard output. Use this format for each case:\n");
        u.append("**Test Input:**\n```\n...\n```\n**Test Output:**\n```\n...\n```");
        return build(TESTER_SYSTEM, u.toString(), style);
    }

    private static void history(StringBuilder u, CodeState s) {
        if (s.program() != null) {
            u.append("Current program:\n```python\n").append(clip(s.program())).append("```\n\n");
        }
        if (!s.mismatches().isEmpty()) {
            u.append("Mismatches of the current program on the tester's tests:\n");
            for (CodeRunner.Outcome o : s.mismatches()) {
                u.append("- input: ").append(clip(o.test().input().strip())).append("\n  expected: ")
                        .append(clip(o.test().output().strip())).append("\n  actual: ").append(clip(o.actual().strip()))
                        .append("\n");
            }
            u.append("\n");
        } else if (!s.tests().isEmpty() && s.program() != null) {
            u.append("The current program passes the tester's ").append(s.tests().size()).append(" tests.\n\n");
        }
    }

    private static Prompt build(String system, String user, PromptStyle style) {
        return style == PromptStyle.COMPACT ? Prompt.compact(user + "\n") : Prompt.chat(system, user);
    }

    private static String clip(String s) {
        return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS) + "...";
    }
}

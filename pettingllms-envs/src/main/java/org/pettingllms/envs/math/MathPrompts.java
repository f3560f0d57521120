package org.pettingllms.envs.math;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * Prompts of the math team, close to PettingLLMs': the reasoner reasons step by step and boxes its answer; the
 * tool writes a Python program that prints the answer. From the second turn on (and, for the reasoner, as soon
 * as the tool has answered in the same turn) each prompt shows both roles' latest solutions and answers and asks
 * to select the right one or refine.
 */
final class MathPrompts {
    static final String REASONER_SYSTEM = "You are a helpful assistant that solves math problems step by step.";
    static final String TOOL_SYSTEM = "You are a helpful assistant that solves math problems by writing Python code.";
    private static final int MAX_SOLUTION_CHARS = 2000;

    private MathPrompts() {
    }

    static Prompt reasoner(MathState s, PromptStyle style) {
        StringBuilder u = new StringBuilder("Problem:\n").append(s.item().question()).append("\n\n");
        history(u, s);
        u.append(s.tool() == null && s.reasoner() == null
                ? "Please think step by step and output the final answer in \\boxed{} format."
                : "Check the solutions above. If one is right, adopt its answer; otherwise correct it. Think step by"
                + " step and output the final answer in \\boxed{} format.");
        return build(REASONER_SYSTEM, u.toString(), style);
    }

    static Prompt tool(MathState s, PromptStyle style) {
        StringBuilder u = new StringBuilder("Problem:\n").append(s.item().question()).append("\n\n");
        history(u, s);
        u.append(s.tool() == null && s.reasoner() == null
                ? "Write a Python program that computes the answer and prints only the final answer. Put the"
                + " program in a ```python``` block."
                : "Check the solutions above. If one is right, write a program that prints its answer; otherwise"
                + " fix the computation. Put the program in a ```python``` block and print only the final answer.");
        return build(TOOL_SYSTEM, u.toString(), style);
    }

    private static void history(StringBuilder u, MathState s) {
        if (s.reasoner() != null) {
            u.append("Reasoning agent's latest solution:\n").append(tail(s.reasoner().solution())).append("\n")
                    .append("Its answer: ").append(s.reasoner().answer() == null ? "(none)" : s.reasoner().answer())
                    .append("\n\n");
        }
        if (s.tool() != null) {
            u.append("Code agent's latest program:\n").append(s.tool().code().isEmpty() ? "(no code block)"
                    : "```python\n" + tail(s.tool().code()) + "```").append("\n")
                    .append("Its output: ").append(tail(s.tool().output().strip())).append("\n\n");
        }
    }

    private static Prompt build(String system, String user, PromptStyle style) {
        return style == PromptStyle.COMPACT ? Prompt.compact(user + "\n") : Prompt.chat(system, user);
    }

    private static String tail(String s) {
        return s.length() <= MAX_SOLUTION_CHARS ? s : "..." + s.substring(s.length() - MAX_SOLUTION_CHARS);
    }
}

package org.pettingllms.envs.math;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * Prompts of the math team, close to PettingLLMs': the reasoner reasons step by step and boxes its answer; the
 * tool writes a Python program that prints the answer. From the second turn on (and, for the reasoner, as soon
 * as the tool has answered in the same turn) each prompt shows both roles' latest solutions and answers and asks
 * to select the right one or refine. The {@code compact} style (small character-level models, as the planning
 * games use it) says the same in fewer characters: a header line, the problem, what the tool's program printed
 * and the reasoner's answer so far, and a {@code >} cue; the tool answers with the program alone.
 */
final class MathPrompts {
    static final String REASONER_SYSTEM = "You are a helpful assistant that solves math problems step by step.";
    static final String TOOL_SYSTEM = "You are a helpful assistant that solves math problems by writing Python code.";
    private static final int MAX_SOLUTION_CHARS = 2000;
    /** Start the compact prompt's lines with the tool's printed output and the reasoner's answer. */
    static final String COMPACT_TOOL = "tool: ";

    static final String COMPACT_REASONER = "reasoner: ";
    private static final int MAX_COMPACT_LINE = 40;

    private MathPrompts() {}

    static Prompt compact(String taskId, MathState s, String role) {
        StringBuilder sb =
                CompactPrompts.header(taskId, role).append(s.item().question()).append('\n');
        if (s.tool() != null) {
            sb.append(COMPACT_TOOL).append(oneLine(s.tool().output())).append('\n');
        }
        if (s.reasoner() != null) {
            sb.append(COMPACT_REASONER)
                    .append(
                            s.reasoner().answer() == null
                                    ? "(none)"
                                    : oneLine(s.reasoner().answer()))
                    .append('\n');
        }
        return CompactPrompts.cue(sb);
    }

    /** The first line, clipped: a compact prompt shows a printed answer, not a traceback. */
    private static String oneLine(String s) {
        String line = s.strip().lines().findFirst().orElse("");
        return line.length() > MAX_COMPACT_LINE ? line.substring(0, MAX_COMPACT_LINE) : line;
    }

    static Prompt reasoner(MathState s) {
        StringBuilder u =
                new StringBuilder("Problem:\n").append(s.item().question()).append("\n\n");
        history(u, s);
        u.append(
                s.tool() == null && s.reasoner() == null
                        ? "Please think step by step and output the final answer in \\boxed{} format."
                        : "Check the solutions above. If one is right, adopt its answer; otherwise correct it. Think step by"
                                + " step and output the final answer in \\boxed{} format.");
        return Prompt.chat(REASONER_SYSTEM, u.toString());
    }

    static Prompt tool(MathState s) {
        StringBuilder u =
                new StringBuilder("Problem:\n").append(s.item().question()).append("\n\n");
        history(u, s);
        u.append(
                s.tool() == null && s.reasoner() == null
                        ? "Write a Python program that computes the answer and prints only the final answer. Put the"
                                + " program in a ```python``` block."
                        : "Check the solutions above. If one is right, write a program that prints its answer; otherwise"
                                + " fix the computation. Put the program in a ```python``` block and print only the final answer.");
        return Prompt.chat(TOOL_SYSTEM, u.toString());
    }

    private static void history(StringBuilder u, MathState s) {
        if (s.reasoner() != null) {
            u.append("Reasoning agent's latest solution:\n")
                    .append(tail(s.reasoner().solution()))
                    .append("\n")
                    .append("Its answer: ")
                    .append(
                            s.reasoner().answer() == null
                                    ? "(none)"
                                    : s.reasoner().answer())
                    .append("\n\n");
        }
        if (s.tool() != null) {
            u.append("Code agent's latest program:\n")
                    .append(
                            s.tool().code().isEmpty()
                                    ? "(no code block)"
                                    : "```python\n" + tail(s.tool().code()) + "```")
                    .append("\n")
                    .append("Its output: ")
                    .append(tail(s.tool().output().strip()))
                    .append("\n\n");
        }
    }

    private static String tail(String s) {
        return s.length() <= MAX_SOLUTION_CHARS ? s : "..." + s.substring(s.length() - MAX_SOLUTION_CHARS);
    }
}

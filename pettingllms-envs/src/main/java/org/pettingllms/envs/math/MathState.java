package org.pettingllms.envs.math;

import org.pettingllms.envs.math.MathRows.MathItem;

/**
 * The state of a math episode: the question and each role's latest attempt (null before its first turn).
 *
 * @param success whether the reasoner's latest answer is correct
 */
public record MathState(MathItem item, ToolAttempt tool, ReasonerAttempt reasoner, boolean success) {
    /**
     * @param code   the program (empty when no code block was found)
     * @param output what it printed, or why it failed
     * @param answer the answer it printed, or null when it printed none
     */
    public record ToolAttempt(String code, String output, String answer) {}

    /** @param answer the extracted final answer, or null when there was none */
    public record ReasonerAttempt(String solution, String answer) {}

    static MathState start(MathItem item) {
        return new MathState(item, null, null, false);
    }
}

package org.pettingllms.envs.planning;

import java.util.function.Function;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.sandbox.CodeBlocks;

/**
 * One solver program of a game's catalog, for the warm-up demonstrations of a program-writing tool role
 * (ENVIRONMENTS.md, planning games: the tool writes code that searches, the planner adopts or overrides what it
 * prints). A catalog holds the correct program and flawed variants of it (wrong direction letters, a missing check,
 * a search cut short), each a small local edit, so that a model warmed up on the catalog writes the wrong one more
 * often than the right one and reinforcement learning has to find the right one.
 *
 * @param name     short id, e.g. {@code bfs} or {@code bfs-swapped-ud}
 * @param source   the Python program: reads the board from standard input as the prompt shows it, prints the answer
 * @param correct  whether it solves every solvable board
 * @param weight   its share of the demonstrations (the catalog's weights sum to 1)
 * @param output   what the program prints for a board (its first line; empty when it prints nothing), computed in
 *                 Java so demonstrations need no sandbox; a test runs the programs to check these agree
 */
public record ToolProgram<B>(String name, String source, boolean correct, double weight, Function<B, String> output) {
    /** The program as a tool's answer: the source alone (compact), or in a fenced Python block (chat). */
    public String answer(PromptStyle style) {
        return style == PromptStyle.CHAT ? CodeBlocks.fence(source) : source;
    }
}

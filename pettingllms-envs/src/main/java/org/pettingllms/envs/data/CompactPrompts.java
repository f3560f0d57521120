package org.pettingllms.envs.data;

import org.pettingllms.core.data.Prompt;

/**
 * The frame every task's compact prompt (small models) shares: a header line naming the task and the role, the
 * task's own lines, and a {@code >} cue; and the header's reading, by which the oracles tell whose prompt it is.
 */
public final class CompactPrompts {
    private CompactPrompts() {}

    /** A compact prompt's first line, {@code <task id> <role>}, to append the task's lines to. */
    public static StringBuilder header(String taskId, String role) {
        return new StringBuilder(taskId).append(' ').append(role).append('\n');
    }

    /** Whether {@code text} is a compact prompt of {@code role} in the task {@code taskId}. */
    public static boolean isFor(String text, String taskId, String role) {
        return text.startsWith(taskId + " " + role + "\n");
    }

    /** The compact prompt of {@code lines} (header first), ended by the cue. */
    public static Prompt cue(StringBuilder lines) {
        return Prompt.compact(lines.append('>').toString());
    }
}

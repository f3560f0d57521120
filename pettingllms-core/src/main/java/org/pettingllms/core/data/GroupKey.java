package org.pettingllms.core.data;

import java.util.Objects;

/**
 * The GRPO comparison group of a sample. AT-GRPO groups by (problem, role, turn); ablations drop the role or
 * the turn, written as {@link #ANY_ROLE} and {@link #ANY_TURN}. A key always names exactly one problem: groups
 * of different problems are never merged (reference defect 4).
 */
public record GroupKey(String problemId, String role, int turn) {
    public static final String ANY_ROLE = "*";
    public static final int ANY_TURN = -1;

    public GroupKey {
        Objects.requireNonNull(problemId, "problemId");
        Objects.requireNonNull(role, "role");
    }

    @Override
    public String toString() {
        return problemId + "|" + role + "|" + (turn == ANY_TURN ? "*" : Integer.toString(turn));
    }
}

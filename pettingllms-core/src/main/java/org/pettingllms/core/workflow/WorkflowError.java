package org.pettingllms.core.workflow;

/**
 * Why a design is not a workflow that may run: one line naming where ({@code line}, 1-based; 0 for the whole design)
 * and what was expected. A designer's malformed or over-budget design becomes this, and its reward, never an
 * exception in a rollout.
 */
public final class WorkflowError extends Exception {
    private final int line;

    public WorkflowError(int line, String message) {
        super(line > 0 ? "line " + line + ": " + message : message, null, false, false);
        this.line = line;
    }

    public int line() {
        return line;
    }
}

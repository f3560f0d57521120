package org.pettingllms.core.workflow;

/**
 * A tool an agent of a workflow may be given ({@code agent solver [python]: ...}): the task's sandboxed runner for
 * the code in the agent's reply (the Python sandbox, the SQL engine). The implementation bounds what the code may do.
 */
public interface WorkflowTool {
    /** What the code printed or returned, or why it did not run, as the next node reads it. */
    String run(String code);
}

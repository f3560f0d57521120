package org.pettingllms.core.workflow;

import java.util.Set;

/**
 * What a design may be: its size in characters, lines and nodes, its nesting, the model calls one execution makes,
 * an ensemble's k, a debate's rounds and debaters, an instruction's length, and the role and tool names it may use
 * (an executor role is a policy, so a role not configured cannot run). Checked before anything runs.
 *
 * @param roles the executor roles a design may name
 * @param tools the tools an agent may be given (empty: none)
 */
public record WorkflowLimits(
        int maxChars,
        int maxLines,
        int maxNodes,
        int maxDepth,
        int maxCalls,
        int maxK,
        int maxRounds,
        int maxDebaters,
        int maxInstructionChars,
        Set<String> roles,
        Set<String> tools) {
    public WorkflowLimits {
        roles = Set.copyOf(roles);
        tools = Set.copyOf(tools);
        if (maxChars < 1
                || maxLines < 1
                || maxNodes < 1
                || maxDepth < 1
                || maxCalls < 1
                || maxK < 2
                || maxRounds < 1
                || maxDebaters < 2
                || maxInstructionChars < 1) {
            throw new IllegalArgumentException("workflow limits must be >= 1 (k and debaters >= 2)");
        }
        if (roles.isEmpty()) {
            throw new IllegalArgumentException("a workflow needs at least one executor role");
        }
    }

    /** The defaults for executor roles {@code roles} and tools {@code tools}: sizes a small designer writes in. */
    public static WorkflowLimits of(Set<String> roles, Set<String> tools) {
        return new WorkflowLimits(4000, 40, 24, 6, 12, 5, 3, 3, 300, roles, tools);
    }

    /** These sizes for executor roles {@code roles} and tools {@code tools}. */
    public WorkflowLimits with(Set<String> roles, Set<String> tools) {
        return new WorkflowLimits(
                maxChars,
                maxLines,
                maxNodes,
                maxDepth,
                maxCalls,
                maxK,
                maxRounds,
                maxDebaters,
                maxInstructionChars,
                roles,
                tools);
    }

    public WorkflowLimits withMaxCalls(int calls) {
        return new WorkflowLimits(
                maxChars,
                maxLines,
                maxNodes,
                maxDepth,
                calls,
                maxK,
                maxRounds,
                maxDebaters,
                maxInstructionChars,
                roles,
                tools);
    }
}

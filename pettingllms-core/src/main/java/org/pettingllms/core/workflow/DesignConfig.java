package org.pettingllms.core.workflow;

import java.util.Objects;

/**
 * How a designer and its executors are rolled out and which side learns when (docs/WORKFLOWS.md, "Co-training").
 *
 * @param executions   M: how often each of a problem's designs runs in training (rollout.k is N, the designs)
 * @param executorGroups the executors' GRPO groups: every execution of a problem, or of one design
 * @param schedule     which side's samples train: designer only, executors only, both, or alternating phases
 * @param phaseSteps   P: an alternating schedule's phase length in steps
 * @param first        which side an alternating schedule trains first
 * @param invalidReward the designer's reward for a design that does not parse or is over budget
 * @param callCost     subtracted from a design's reward per model call its executions made, on average (0: off)
 * @param nodeCandidates K at every model call of an execution: K candidates answer the call's prompt, each scored
 *                     by the answer in its own output, and the best continues (AT-GRPO's tree sampling inside a
 *                     workflow; 1: off, each call one sample)
 * @param executorTemperature the executors' temperature in every rollout, training and validation alike (negative:
 *                     the rollout's own); a workflow's ensembles and debates need answers that differ, which greedy
 *                     executors never give, while the designer still writes greedily where validation is greedy
 */
public record DesignConfig(
        int executions,
        ExecutorGroups executorGroups,
        Schedule schedule,
        int phaseSteps,
        Side first,
        double invalidReward,
        double callCost,
        int nodeCandidates,
        double executorTemperature) {
    public enum ExecutorGroups {
        PROBLEM,
        DESIGN
    }

    public enum Schedule {
        DESIGNER,
        EXECUTORS,
        SIMULTANEOUS,
        ALTERNATING
    }

    public enum Side {
        DESIGNER,
        EXECUTORS
    }

    /** M = 4, executors grouped by problem, alternating 10-step phases, executors first, -1 for an invalid design. */
    public static final DesignConfig DEFAULT =
            new DesignConfig(4, ExecutorGroups.PROBLEM, Schedule.ALTERNATING, 10, Side.EXECUTORS, -1, 0, 1, -1);

    public DesignConfig {
        Objects.requireNonNull(executorGroups, "executorGroups");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(first, "first");
        if (executions < 1 || phaseSteps < 1) {
            throw new IllegalArgumentException("executions and phaseSteps must be >= 1");
        }
        if (!Double.isFinite(invalidReward) || !Double.isFinite(callCost) || callCost < 0) {
            throw new IllegalArgumentException("invalidReward must be finite and callCost finite and >= 0");
        }
        if (!Double.isFinite(executorTemperature)) {
            throw new IllegalArgumentException("executorTemperature must be a number, got " + executorTemperature);
        }
        if (nodeCandidates < 1 || nodeCandidates > 8) {
            throw new IllegalArgumentException("nodeCandidates must be 1 (off) to 8, got " + nodeCandidates);
        }
    }

    /** One sample a call (no tree sampling at node calls), executors at the rollout's temperature. */
    public DesignConfig(
            int executions,
            ExecutorGroups executorGroups,
            Schedule schedule,
            int phaseSteps,
            Side first,
            double invalidReward,
            double callCost) {
        this(executions, executorGroups, schedule, phaseSteps, first, invalidReward, callCost, 1, -1);
    }

    /** Whether {@code side}'s samples train at {@code step}. */
    public boolean trains(Side side, int step) {
        return switch (schedule) {
            case DESIGNER -> side == Side.DESIGNER;
            case EXECUTORS -> side == Side.EXECUTORS;
            case SIMULTANEOUS -> true;
            case ALTERNATING -> ((step / phaseSteps) % 2 == 0) == (side == first);
        };
    }
}

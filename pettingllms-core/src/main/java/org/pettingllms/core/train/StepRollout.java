package org.pettingllms.core.train;

import java.util.Map;
import org.pettingllms.core.rollout.RolloutResult;

/**
 * A step's rollouts as the update reads them.
 *
 * @param taskMetrics the task's counters drained right after these rollouts
 * @param seconds     how long publishing and rolling out took
 */
record StepRollout(RolloutResult result, Map<String, Double> taskMetrics, double seconds) {
    StepRollout {
        // in the task's order: Map.copyOf's order is drawn anew in every JVM, and metrics.jsonl keeps the order
        taskMetrics = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(taskMetrics));
    }
}

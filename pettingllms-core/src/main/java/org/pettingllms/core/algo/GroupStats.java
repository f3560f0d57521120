package org.pettingllms.core.algo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Sample;

/**
 * Reward statistics of one group over its GRPO units (distinct {@code Sample.unitId}s): a tree group has K units; a
 * parallel-sampling group has K trajectories however many decisions each made.
 *
 * @param unitRewards reward per unit, in first-seen order
 * @param std         unbiased standard deviation (divisor n-1); 0 for a single unit
 */
public record GroupStats(Map<String, Double> unitRewards, double mean, double std, boolean constant) {

    public static GroupStats of(List<Sample> group) {
        Map<String, Double> units = new LinkedHashMap<>();
        for (Sample s : group) {
            Double prev = units.putIfAbsent(s.unitId(), s.reward());
            if (prev != null && prev != s.reward()) {
                throw new IllegalArgumentException("samples of unit '" + s.unitId() + "' carry different rewards ("
                        + prev + " vs " + s.reward() + "); a unit has one reward");
            }
        }
        int n = units.size();
        double sum = 0;
        for (double r : units.values()) {
            sum += r;
        }
        double mean = sum / n;
        double sq = 0;
        boolean constant = true;
        double first = units.values().iterator().next();
        for (double r : units.values()) {
            sq += (r - mean) * (r - mean);
            constant &= r == first;
        }
        double std = n > 1 ? Math.sqrt(sq / (n - 1)) : 0.0;
        return new GroupStats(Collections.unmodifiableMap(units), mean, std, constant); // keeps the order
    }

    public int size() {
        return unitRewards.size();
    }
}

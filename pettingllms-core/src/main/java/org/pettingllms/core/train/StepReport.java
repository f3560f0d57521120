package org.pettingllms.core.train;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One training step's numbers: the step (0-based) and named values ({@link Metric}), written as one line of
 * {@code metrics.jsonl}.
 */
public record StepReport(int step, Map<String, Double> values) {
    public StepReport {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The value of {@code key}, or null when the step has none (validation numbers only on validation steps). */
    public Double get(String key) {
        return values.get(key);
    }

    public double getOrDefault(String key, double fallback) {
        return values.getOrDefault(key, fallback);
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The JSON object of a line: {@code step} first, whole numbers written as integers. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("step", step);
        values.forEach((k, v) -> m.put(k, v == Math.rint(v) && Math.abs(v) < 1e15 ? (Object) v.longValue() : v));
        return m;
    }

    /** A parsed line; every value must be a number. */
    public static StepReport fromJson(Map<String, Object> json) {
        Map<String, Double> values = new LinkedHashMap<>();
        json.forEach((k, v) -> {
            if (!k.equals("step")) {
                if (!(v instanceof Number n)) {
                    throw new IllegalArgumentException("metric '" + k + "' is not a number: " + v);
                }
                values.put(k, n.doubleValue());
            }
        });
        if (!(json.get("step") instanceof Number s)) {
            throw new IllegalArgumentException("a metrics line without a step: " + json.keySet());
        }
        return new StepReport(s.intValue(), values);
    }
}

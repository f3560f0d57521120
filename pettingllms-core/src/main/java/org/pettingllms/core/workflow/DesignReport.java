package org.pettingllms.core.workflow;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a designed system's rollouts counted, read back by problem kind: the share of executions solved, and the
 * share of each design shape ({@link Workflow#shape}) among the valid designs. The counters are the rollouts'
 * metrics ({@code design/kind/KIND/executions}, {@code .../solved}, {@code design/shape/KIND/SHAPE}); validation's
 * carry the trainer's {@code val/} prefix.
 */
public final class DesignReport {
    public static final String KIND = "design/kind/";
    public static final String SHAPE = "design/shape/";

    private DesignReport() {}

    /** Per kind, the share of its executions solved; {@code prefix} is {@code ""} or {@code val/}. */
    public static Map<String, Double> successByKind(Map<String, Double> metrics, String prefix) {
        Map<String, Double> out = new TreeMap<>();
        String head = prefix + KIND;
        metrics.forEach((k, v) -> {
            if (k.startsWith(head) && k.endsWith("/solved")) {
                String kind = k.substring(head.length(), k.length() - "/solved".length());
                double runs = metrics.getOrDefault(head + kind + "/executions", 0.0);
                if (runs > 0) {
                    out.put(kind, v / runs);
                }
            }
        });
        return out;
    }

    /** Per kind, each design shape's share of the kind's valid designs, largest first. */
    public static Map<String, Map<String, Double>> shapesByKind(Map<String, Double> metrics, String prefix) {
        Map<String, Map<String, Double>> counts = new TreeMap<>();
        String head = prefix + SHAPE;
        metrics.forEach((k, v) -> {
            if (k.startsWith(head)) {
                String rest = k.substring(head.length());
                int slash = rest.indexOf('/');
                if (slash > 0) {
                    counts.computeIfAbsent(rest.substring(0, slash), x -> new TreeMap<>())
                            .merge(rest.substring(slash + 1), v, Double::sum);
                }
            }
        });
        Map<String, Map<String, Double>> out = new TreeMap<>();
        counts.forEach((kind, byShape) -> {
            double total =
                    byShape.values().stream().mapToDouble(Double::doubleValue).sum();
            Map<String, Double> shares = new java.util.LinkedHashMap<>();
            byShape.entrySet().stream()
                    .sorted(Map.Entry.<String, Double>comparingByValue()
                            .reversed()
                            .thenComparing(Map.Entry.comparingByKey()))
                    .forEach(e -> shares.put(e.getKey(), e.getValue() / total));
            out.put(kind, shares);
        });
        return out;
    }

    /**
     * Lines for a reader: success by kind, then each kind's design shapes with their shares
     * ({@code letters: ensemble(5)[agent] 62%, agent 20%, ...}); none when the metrics hold no designed counters.
     */
    public static List<String> lines(Map<String, Double> metrics, String prefix) {
        List<String> out = new ArrayList<>();
        Map<String, Double> success = successByKind(metrics, prefix);
        if (!success.isEmpty()) {
            List<String> parts = new ArrayList<>();
            success.forEach((kind, rate) -> parts.add(String.format("%s %.1f%%", kind, 100 * rate)));
            out.add("success by kind: " + String.join(" | ", parts));
        }
        shapesByKind(metrics, prefix).forEach((kind, shares) -> {
            List<String> parts = new ArrayList<>();
            shares.forEach((shape, share) -> parts.add(String.format("%s %.0f%%", shape, 100 * share)));
            out.add("designs for " + kind + ": " + String.join(", ", parts));
        });
        return out;
    }
}

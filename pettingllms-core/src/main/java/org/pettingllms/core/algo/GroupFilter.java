package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.Sample;

/**
 * Drops groups before the update (AT-GRPO.md, "Optional group filters"). Written in configs as {@code none},
 * {@code zero-variance}, {@code mean:<ratio>} (drop the lowest-mean fraction) or {@code std:<ratio>} (drop the
 * lowest-std fraction); the number dropped is {@code floor(ratio * groups)}, ties broken by group order.
 */
public record GroupFilter(Kind kind, double ratio) {
    public enum Kind {
        NONE,
        ZERO_VARIANCE,
        MEAN,
        STD
    }

    public static final GroupFilter NONE = new GroupFilter(Kind.NONE, 0);

    public GroupFilter {
        if (ratio < 0 || ratio >= 1) {
            throw new IllegalArgumentException("group filter ratio must be in [0, 1), got " + ratio);
        }
    }

    public static GroupFilter parse(String spec) {
        String s = spec.trim().toLowerCase();
        if (s.equals("none")) {
            return NONE;
        }
        if (s.equals("zero-variance")) {
            return new GroupFilter(Kind.ZERO_VARIANCE, 0);
        }
        int colon = s.indexOf(':');
        if (colon > 0) {
            String kind = s.substring(0, colon);
            double ratio;
            try {
                ratio = Double.parseDouble(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("group filter '" + spec + "': the ratio after ':' must be a number");
            }
            if (kind.equals("mean")) {
                return new GroupFilter(Kind.MEAN, ratio);
            }
            if (kind.equals("std")) {
                return new GroupFilter(Kind.STD, ratio);
            }
        }
        throw new IllegalArgumentException(
                "unknown group filter '" + spec + "'; expected one of: none, zero-variance, mean:<ratio>, std:<ratio>");
    }

    public Map<GroupKey, List<Sample>> apply(Map<GroupKey, List<Sample>> groups) {
        return switch (kind) {
            case NONE -> groups;
            case ZERO_VARIANCE -> {
                Map<GroupKey, List<Sample>> out = new LinkedHashMap<>();
                groups.forEach((k, g) -> {
                    if (!GroupStats.of(g).constant()) {
                        out.put(k, g);
                    }
                });
                yield out;
            }
            case MEAN -> dropLowest(groups, GroupStats::mean);
            case STD -> dropLowest(groups, GroupStats::std);
        };
    }

    private Map<GroupKey, List<Sample>> dropLowest(
            Map<GroupKey, List<Sample>> groups, ToDoubleFunction<GroupStats> by) {
        int drop = (int) Math.floor(ratio * groups.size());
        List<GroupKey> order = new ArrayList<>(groups.keySet());
        Map<GroupKey, Double> score = new LinkedHashMap<>();
        groups.forEach((k, g) -> score.put(k, by.applyAsDouble(GroupStats.of(g))));
        List<GroupKey> sorted = new ArrayList<>(order);
        sorted.sort(Comparator.comparingDouble(score::get)); // stable: ties keep group order
        List<GroupKey> dropped = sorted.subList(0, drop);
        Map<GroupKey, List<Sample>> out = new LinkedHashMap<>();
        for (GroupKey k : order) {
            if (!dropped.contains(k)) {
                out.put(k, groups.get(k));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case NONE -> "none";
            case ZERO_VARIANCE -> "zero-variance";
            case MEAN -> "mean:" + ratio;
            case STD -> "std:" + ratio;
        };
    }
}

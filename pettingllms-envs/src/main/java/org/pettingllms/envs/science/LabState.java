package org.pettingllms.envs.science;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An episode's state: the lab and the measurements so far, each with its settings.
 *
 * @param proposals the theorist's proposals (the episode ends at the first one that parses)
 * @param replies   the theorist's replies so far, whatever they were (alone: every reply)
 */
public record LabState(Lab lab, List<Measurement> data, int proposals, int replies) {
    public LabState {
        data = List.copyOf(data);
    }

    /** One experiment: the settings (in the lab's variable order) and what was measured. */
    public record Measurement(Map<String, Double> x, double y) {
        public Measurement {
            x = new LinkedHashMap<>(x);
        }

        /** {@code m=2 v=3 y=18.1} */
        String text() {
            StringBuilder sb = new StringBuilder();
            x.forEach((k, v) -> sb.append(k).append('=').append(v.intValue()).append(' '));
            return sb.append("y=").append(format(y)).toString();
        }
    }

    static String format(double y) {
        return y == Math.rint(y) && Math.abs(y) < 1e15 ? Long.toString((long) y) : Double.toString(y);
    }

    static LabState start(Lab lab) {
        return new LabState(lab, List.of(), 0, 0);
    }

    LabState measured(Map<String, Double> x) {
        int repeat = (int) data.stream().filter(m -> m.x().equals(x)).count();
        List<Measurement> d = new ArrayList<>(data);
        d.add(new Measurement(x, lab.measure(x, repeat)));
        return new LabState(lab, d, proposals, replies);
    }

    LabState replied() {
        return new LabState(lab, data, proposals, replies + 1);
    }

    /** The laws of the family that every measurement so far allows. */
    List<Law> consistent() {
        return Lab.possible(lab.variables(), data, lab.noise());
    }
}

package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.Sample;

/**
 * GRPO outcome advantages per group (AT-GRPO.md, "Advantage"):
 * {@code A_j = (r_j - mean_g) / (std_g + 1e-6)} with the unbiased std, or {@code A_j = r_j - mean_g} without
 * std normalisation (Dr.GRPO). A group whose rewards are all equal, or that has a single unit, gets A = 0.
 */
public final class Advantages {
    public static final double EPS = 1e-6;

    private Advantages() {}

    public static List<ScoredSample> compute(Map<GroupKey, List<Sample>> groups, boolean normalizeByStd) {
        List<ScoredSample> out = new ArrayList<>();
        for (List<Sample> group : groups.values()) {
            GroupStats stats = GroupStats.of(group);
            for (Sample s : group) {
                out.add(new ScoredSample(s, advantage(s.reward(), stats, normalizeByStd)));
            }
        }
        return out;
    }

    static double advantage(double reward, GroupStats g, boolean normalizeByStd) {
        if (g.size() < 2 || g.constant()) {
            return 0.0; // no signal; and exactly 0 rather than rounding noise
        }
        double centred = reward - g.mean();
        return normalizeByStd ? centred / (g.std() + EPS) : centred;
    }
}

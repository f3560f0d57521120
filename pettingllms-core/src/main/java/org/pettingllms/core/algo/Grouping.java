package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.Sample;

/**
 * How samples are grouped for GRPO statistics. AT-GRPO: (problem, role, turn). The others are the paper's
 * ablations and the single-agent baseline. Every grouping keeps problems apart.
 */
public enum Grouping {
    PROBLEM_ROLE_TURN,
    PROBLEM_ROLE,
    PROBLEM_TURN,
    PROBLEM;

    public GroupKey keyOf(Sample s) {
        return switch (this) {
            case PROBLEM_ROLE_TURN -> new GroupKey(s.problemId(), s.role(), s.turn());
            case PROBLEM_ROLE -> new GroupKey(s.problemId(), s.role(), GroupKey.ANY_TURN);
            case PROBLEM_TURN -> new GroupKey(s.problemId(), GroupKey.ANY_ROLE, s.turn());
            case PROBLEM -> new GroupKey(s.problemId(), GroupKey.ANY_ROLE, GroupKey.ANY_TURN);
        };
    }

    /** Groups in first-seen order. */
    public Map<GroupKey, List<Sample>> group(List<Sample> samples) {
        Map<GroupKey, List<Sample>> groups = new LinkedHashMap<>();
        for (Sample s : samples) {
            groups.computeIfAbsent(keyOf(s), k -> new ArrayList<>()).add(s);
        }
        return groups;
    }
}

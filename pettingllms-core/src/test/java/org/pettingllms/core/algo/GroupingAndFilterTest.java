package org.pettingllms.core.algo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.Sample;

class GroupingAndFilterTest {
    final List<Sample> samples = List.of(
            Samples.tree("p1", "a", 0, 0, 1), Samples.tree("p1", "a", 0, 1, 1), // constant, mean 1
            Samples.tree("p1", "b", 0, 0, 0), Samples.tree("p1", "b", 0, 1, 4), // mean 2, std 2.83
            Samples.tree("p1", "a", 1, 0, 5), Samples.tree("p1", "a", 1, 1, 6), // mean 5.5, std 0.71
            Samples.tree("p2", "a", 0, 0, -1), Samples.tree("p2", "a", 0, 1, 1)); // mean 0, std 1.41

    @Test
    void groupingsNeverMixProblems() {
        for (Grouping g : Grouping.values()) {
            g.group(samples)
                    .forEach((k, members) ->
                            assertThat(members).allMatch(s -> s.problemId().equals(k.problemId())));
        }
        assertThat(Grouping.PROBLEM_ROLE_TURN.group(samples)).hasSize(4);
        assertThat(Grouping.PROBLEM_ROLE.group(samples).keySet())
                .containsExactly(new GroupKey("p1", "a", -1), new GroupKey("p1", "b", -1), new GroupKey("p2", "a", -1));
        assertThat(Grouping.PROBLEM_TURN.group(samples)).hasSize(3);
        assertThat(Grouping.PROBLEM.group(samples)).hasSize(2);
    }

    @Test
    void filters() {
        Map<GroupKey, List<Sample>> groups = Grouping.PROBLEM_ROLE_TURN.group(samples);
        assertThat(GroupFilter.parse("none").apply(groups)).isEqualTo(groups);
        assertThat(GroupFilter.parse("zero-variance").apply(groups).keySet())
                .doesNotContain(new GroupKey("p1", "a", 0))
                .hasSize(3);
        // means: 1, 2, 5.5, 0 -> mean:0.5 drops floor(0.5*4)=2 lowest: (p2,a,0) and (p1,a,0)
        assertThat(GroupFilter.parse("mean:0.5").apply(groups).keySet())
                .containsExactly(new GroupKey("p1", "b", 0), new GroupKey("p1", "a", 1));
        // stds: 0, 2.83, 0.71, 1.41 -> std:0.25 drops 1: the constant group
        assertThat(GroupFilter.parse("std:0.25").apply(groups).keySet())
                .doesNotContain(new GroupKey("p1", "a", 0))
                .hasSize(3);
        assertThat(GroupFilter.parse("mean:0.2").apply(groups)).hasSize(4); // floor(0.8) = 0
    }

    @Test
    void badFilterSpecsNameTheAllowedForms() {
        assertThatThrownBy(() -> GroupFilter.parse("median:0.1"))
                .hasMessageContaining("none, zero-variance, mean:<ratio>, std:<ratio>");
        assertThatThrownBy(() -> GroupFilter.parse("mean:x")).hasMessageContaining("must be a number");
        assertThatThrownBy(() -> GroupFilter.parse("std:1.5")).hasMessageContaining("[0, 1)");
    }
}

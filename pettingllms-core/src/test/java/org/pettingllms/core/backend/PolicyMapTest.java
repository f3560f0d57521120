package org.pettingllms.core.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.PolicyRef;

class PolicyMapTest {
    final List<String> roles = List.of("tool", "plan");

    @Test
    void levels() {
        assertThat(PolicyMap.forLevel(Level.L1, roles, "m", Set.of()).trainedPolicies())
                .containsExactly(PolicyRef.of("m"));
        assertThat(PolicyMap.forLevel(Level.L2, roles, "m", Set.of()).trainedPolicies())
                .containsExactly(new PolicyRef("m", "plan"), new PolicyRef("m", "tool"));
        assertThat(PolicyMap.forLevel(Level.L3, roles, "m", Set.of()).policyOf("tool"))
                .isEqualTo(PolicyRef.of("m/tool"));
        assertThat(PolicyMap.forLevel(Level.L0, List.of("plan"), "m", Set.of()).policyOf("plan"))
                .isEqualTo(PolicyRef.of("m"));
        assertThatThrownBy(() -> PolicyMap.forLevel(Level.L0, roles, "m", Set.of()))
                .hasMessageContaining("exactly one role");
    }

    @Test
    void untrainedRolesActButDoNotLearn() {
        PolicyMap m = PolicyMap.forLevel(Level.L2, roles, "m", Set.of("tool"));
        assertThat(m.isTrained("tool")).isFalse();
        assertThat(m.policyOf("tool")).isEqualTo(new PolicyRef("m", "tool"));
        assertThat(m.trainedPolicies()).containsExactly(new PolicyRef("m", "plan"));
        assertThatThrownBy(() -> PolicyMap.forLevel(Level.L2, roles, "m", Set.of("coder")))
                .hasMessageContaining("'coder'");
    }
}

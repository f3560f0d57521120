package org.pettingllms.core.backend;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.pettingllms.core.data.PolicyRef;

/**
 * Which policy acts for each role, and which roles learn. Untrained roles act but their samples are dropped
 * before the update.
 */
public record PolicyMap(Map<String, PolicyRef> byRole, Set<String> untrainedRoles) {
    public PolicyMap {
        if (byRole.isEmpty()) {
            throw new IllegalArgumentException("a policy map needs at least one role");
        }
        byRole = Map.copyOf(byRole);
        untrainedRoles = Set.copyOf(untrainedRoles);
        for (String r : untrainedRoles) {
            if (!byRole.containsKey(r)) {
                throw new IllegalArgumentException(
                        "untrained role '" + r + "' is not one of the roles " + byRole.keySet());
            }
        }
    }

    /**
     * The standard map for a level: L0 and L1 one model for all roles, L2 the base model with an adapter named
     * after each role, L3 one model per role named {@code <model>/<role>}.
     */
    public static PolicyMap forLevel(Level level, List<String> roles, String model, Set<String> untrainedRoles) {
        if (level == Level.L0 && roles.size() != 1) {
            throw new IllegalArgumentException("level L0 is single-agent: it needs exactly one role, got " + roles);
        }
        Map<String, PolicyRef> map = new LinkedHashMap<>();
        for (String role : roles) {
            map.put(
                    role,
                    switch (level) {
                        case L0, L1 -> PolicyRef.of(model);
                        case L2 -> new PolicyRef(model, role);
                        case L3 -> PolicyRef.of(model + "/" + role);
                    });
        }
        return new PolicyMap(map, untrainedRoles);
    }

    public PolicyRef policyOf(String role) {
        PolicyRef ref = byRole.get(role);
        if (ref == null) {
            throw new IllegalArgumentException("no policy for role '" + role + "'; roles are " + byRole.keySet());
        }
        return ref;
    }

    public boolean isTrained(String role) {
        return byRole.containsKey(role) && !untrainedRoles.contains(role);
    }

    /** Distinct policies that have at least one trained role, in a stable order. */
    public Set<PolicyRef> trainedPolicies() {
        Set<PolicyRef> out = new LinkedHashSet<>();
        byRole.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .filter(e -> !untrainedRoles.contains(e.getKey()))
                .forEach(e -> out.add(e.getValue()));
        return out;
    }
}

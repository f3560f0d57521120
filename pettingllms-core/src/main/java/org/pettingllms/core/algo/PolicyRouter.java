package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.data.PolicyRef;

/**
 * Sends each scored sample to the policy of its role; untrained roles' samples are dropped. A sample must have
 * been sampled by its role's policy (for L2, with its role's adapter): otherwise its logprobs are not the ones
 * the update needs (reference defect 5), and routing fails loudly.
 */
public final class PolicyRouter {
    private PolicyRouter() {}

    public static Map<PolicyRef, List<ScoredSample>> route(List<ScoredSample> samples, PolicyMap policies) {
        Map<PolicyRef, List<ScoredSample>> out = new LinkedHashMap<>();
        for (PolicyRef p : policies.trainedPolicies()) {
            out.put(p, new ArrayList<>());
        }
        for (ScoredSample s : samples) {
            String role = s.sample().role();
            if (!policies.isTrained(role)) {
                continue;
            }
            PolicyRef expected = policies.policyOf(role);
            if (!expected.equals(s.sample().policy())) {
                throw new IllegalStateException("sample of role '" + role + "' was sampled by policy "
                        + s.sample().policy() + " but the role's policy is " + expected);
            }
            out.get(expected).add(s);
        }
        return out;
    }
}

package org.pettingllms.core.config;

import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.GroupFilter;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.algo.RewardMix;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.rollout.RolloutConfig;

/**
 * A run, as loaded from YAML over the defaults in {@code defaults.yaml} (see {@link ConfigLoader}). Every
 * section is a small immutable record; range checks live in the compact constructors.
 */
public record RunConfig(Run run, TaskSpec task, Policy policy, Rollout rollout, Algo algo, Validation validation) {

    /** @param seed the seed of every random choice in the run */
    public record Run(String name, long seed, String outputDir) {
    }

    /**
     * @param name     task name, for example {@code plan-path}
     * @param roles    roles in turn order; empty means the task's own roles (e.g. {@code [plan]} for L0)
     * @param options  task-specific options, checked by the task's factory
     */
    public record TaskSpec(String name, PromptStyle style, int maxTurns, List<String> roles,
                           Map<String, Object> options) {
        public TaskSpec {
            if (maxTurns < 1) {
                throw new IllegalArgumentException("maxTurns must be >= 1, got " + maxTurns);
            }
            roles = List.copyOf(roles);
            options = Map.copyOf(options);
        }
    }

    /** @param model model name or directory; @param untrainedRoles roles that act but do not learn */
    public record Policy(Level level, String model, List<String> untrainedRoles) {
        public Policy {
            untrainedRoles = List.copyOf(untrainedRoles);
        }
    }

    public record Sampling(double temperature, int topK, double topP, int maxTokens, List<String> stop) {
        public Sampling {
            stop = List.copyOf(stop);
            new SamplingParams(temperature, topK, topP, maxTokens, stop, 0); // range checks
        }

        public SamplingParams toParams(long seed) {
            return new SamplingParams(temperature, topK, topP, maxTokens, stop, seed);
        }
    }

    /**
     * @param problemsPerStep problems rolled out per training step (E)
     * @param alpha           team-reward weight of {@code r = alpha * team + local}
     */
    public record Rollout(RolloutConfig.Mode mode, int k, boolean greedySelect, int problemsPerStep,
                          int concurrency, double alpha, double localWeight, double processWeight,
                          Sampling sampling) {
        public Rollout {
            if (k < 1) {
                throw new IllegalArgumentException("k must be >= 1, got " + k);
            }
            if (problemsPerStep < 1 || concurrency < 1) {
                throw new IllegalArgumentException("problemsPerStep and concurrency must be >= 1");
            }
        }

        public RolloutConfig toRolloutConfig(PromptStyle style, long seed) {
            return new RolloutConfig(mode, k, greedySelect, style, sampling.toParams(seed),
                    new RewardMix(alpha, localWeight, processWeight), concurrency);
        }
    }

    /** @param groupFilter none, zero-variance, mean:&lt;ratio&gt; or std:&lt;ratio&gt; */
    public record Algo(Grouping groupBy, boolean normalizeByStd, String groupFilter) {
        public Algo {
            GroupFilter.parse(groupFilter); // fails early with the allowed forms
        }

        public GroupFilter filter() {
            return GroupFilter.parse(groupFilter);
        }
    }

    /** Validation: no tree sampling; {@code samplesPerProblem} trajectories per problem. */
    public record Validation(int problems, int samplesPerProblem, Sampling sampling) {
        public Validation {
            if (problems < 0 || samplesPerProblem < 1) {
                throw new IllegalArgumentException("need problems >= 0 and samplesPerProblem >= 1");
            }
        }
    }
}

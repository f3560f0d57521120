package org.pettingllms.core.rollout;

import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RolloutConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.util.Seeds;

/**
 * One episode as plain blocking code (AT-GRPO.md, Algorithm 1). For each turn and each role in turn order: one
 * prompt from the current state, K candidates (tree) or one (parallel), each stepped from that same state, reward
 * {@code alpha * team + local}, continue from the best candidate, and stop at the first terminal micro-step.
 * States are immutable, so every candidate steps from the true current state (reference defects 1-3: no
 * batch-generating all roles first, no stale copies, no choosing before the later roles are scored).
 */
final class Episode<S> {
    private final Task<S> task;
    private final Problem problem;
    private final int trajectory;
    private final PolicyMap policies;
    private final RolloutConfig config;
    private final Sampler sampler;
    private final boolean tree;

    Episode(Task<S> task, Problem problem, int trajectory, PolicyMap policies, RolloutConfig config, Sampler sampler) {
        this.task = task;
        this.problem = problem;
        this.trajectory = trajectory;
        this.policies = policies;
        this.config = config;
        this.sampler = sampler;
        this.tree = config.mode() == RolloutConfig.Mode.TREE;
    }

    EpisodeResult run() {
        S state = task.initialState(problem);
        List<StepRecord> path = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        long envSteps = 0;
        int turns = 0;
        boolean success = false;
        episode:
        for (int turn = 0; turn < task.maxTurns(); turn++) {
            turns = turn + 1;
            for (String role : task.roles()) {
                Decision<S> d = decide(state, role, turn);
                envSteps += d.transitions.size();
                samples.addAll(d.samples);
                Transition<S> chosen = d.transitions.get(d.best);
                path.add(new StepRecord(
                        role,
                        turn,
                        d.prompt,
                        d.candidates.get(d.best).text(),
                        chosen.reward(),
                        d.samples.get(d.best).reward(),
                        chosen.outcome(),
                        chosen.summary(),
                        chosen.done(),
                        chosen.success()));
                state = chosen.next();
                success = chosen.success();
                if (chosen.done()) {
                    break episode; // termination is checked after every role's micro-step
                }
            }
        }
        if (!tree) {
            samples = withTrajectoryReturn(samples, path);
        }
        return new EpisodeResult(problem, trajectory, path, success, turns, samples, envSteps);
    }

    private record Decision<S>(
            Prompt prompt,
            List<Completion> candidates,
            List<Transition<S>> transitions,
            List<Sample> samples,
            int best) {}

    private Decision<S> decide(S state, String role, int turn) {
        Prompt prompt = task.prompt(state, role, turn, config.style());
        PolicyRef policy = policies.policyOf(role);
        int n = tree ? config.k() : 1;
        SamplingParams params = config.sampling()
                .withSeed(
                        tree
                                ? Seeds.derive(config.sampling().seed(), problem.id(), role, turn)
                                : Seeds.derive(config.sampling().seed(), problem.id(), trajectory, role, turn));
        List<Completion> candidates;
        if (prompt.images().isEmpty()) {
            candidates = sampler.sample(policy, prompt, n, params);
        } else {
            try {
                candidates = sampler.sample(policy, prompt, n, params);
            } catch (UnsupportedOperationException e) {
                // a model that takes no images for a task that shows them: the run's config pairs them, so one line
                // naming the key, the role and its policy
                throw new ConfigException(
                        "config key 'policy.model': role '" + role + "' (policy " + policy + "): " + e.getMessage());
            }
        }
        if (candidates.size() != n) {
            throw new RolloutException("sampler returned " + candidates.size() + " completions for n=" + n
                    + " (problem " + problem.id() + ", role " + role + ", turn " + turn + ")");
        }
        List<Transition<S>> transitions = new ArrayList<>(n);
        double[] rewards = new double[n];
        for (int c = 0; c < n; c++) {
            Transition<S> t = task.step(state, role, candidates.get(c)); // each from the same, unmodified state
            transitions.add(t);
            rewards[c] = config.mix().mix(t.reward());
        }
        int best = tree && config.greedySelect() ? argmaxFirst(rewards) : 0;
        List<Sample> samples = new ArrayList<>(n);
        for (int c = 0; c < n; c++) {
            String unit = tree ? problem.id() + "|" + role + "|" + turn + "#" + c : problem.id() + "#" + trajectory;
            samples.add(new Sample(
                    problem.id(),
                    role,
                    turn,
                    policy,
                    prompt,
                    candidates.get(c),
                    transitions.get(c).reward(),
                    transitions.get(c).outcome(),
                    rewards[c],
                    unit,
                    tree ? c : trajectory,
                    c == best));
        }
        return new Decision<>(prompt, candidates, transitions, samples, best);
    }

    /** Index of the largest value; the first one on ties. */
    static int argmaxFirst(double[] values) {
        int best = 0;
        for (int i = 1; i < values.length; i++) {
            if (values[i] > values[best]) {
                best = i;
            }
        }
        return best;
    }

    /** Parallel sampling (GRPO baseline): every decision of a trajectory is rewarded with the episode return. */
    private static List<Sample> withTrajectoryReturn(List<Sample> samples, List<StepRecord> path) {
        double ret = path.stream().mapToDouble(StepRecord::mixedReward).sum();
        return samples.stream().map(s -> s.withReward(ret)).toList();
    }
}

package org.pettingllms.core.algo;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Sample;

/**
 * State-grouped step advantages (GiGPO: Feng et al. 2025, "Group-in-Group Policy Optimization for LLM Agent
 * Training"), beside AT-GRPO's tree groups as another answer to "which answers were given the same context". The K
 * trajectories of a problem are sampled independently (parallel mode); steps whose observation is the same across
 * them (the same role shown the same prompt: an anchor state) form a step group, each step scored by its discounted
 * return from there on, and the step advantage is added to the episode advantage:
 * <pre>
 *   G_t      = sum_{j >= t} gamma^(j - t) r_j              (r_j: the mixed reward of the trajectory's micro-step j)
 *   A_step   = (G_t - mean_s G) / (std_s G + 1e-6)          over the step group s (or G_t - mean_s G without std)
 *   A        = A_episode + w * A_step
 * </pre>
 * A step group with one step, or equal returns, adds 0. Exact match by default; with {@code similarity < 1} a step
 * joins the first group (in trajectory order) whose first prompt is at least that similar ({@link #similarity}).
 */
public final class StateGroups {
    private StateGroups() {}

    /**
     * The step advantage of every sample of parallel trajectories (by identity), 0 for steps alone in their group.
     *
     * @param trajectories each a trajectory: its samples and their step rewards, in order
     * @param similarity 1: exact match of role and prompt text; below 1: the similarity threshold
     */
    public static Map<Sample, Double> stepAdvantages(
            List<Trajectory> trajectories, double gamma, double similarity, boolean normalizeByStd) {
        Map<String, List<Step>> byProblem = new LinkedHashMap<>();
        for (Trajectory e : trajectories) {
            double g = 0;
            List<Step> steps = new ArrayList<>();
            for (int t = e.rewards().size() - 1; t >= 0; t--) { // discounted returns, from the end
                g = e.rewards().get(t) + gamma * g;
                steps.add(0, new Step(e.samples().get(t), g));
            }
            byProblem.computeIfAbsent(e.problemId(), k -> new ArrayList<>()).addAll(steps);
        }
        Map<Sample, Double> out = new IdentityHashMap<>();
        for (List<Step> steps : byProblem.values()) {
            for (List<Step> group : group(steps, similarity)) {
                scores(group, normalizeByStd, out);
            }
        }
        return out;
    }

    /**
     * One trajectory of a problem: its decisions' samples in order, and the mixed reward of each.
     *
     * @param rewards the reward of each step, one per sample
     */
    public record Trajectory(String problemId, List<Sample> samples, List<Double> rewards) {
        public Trajectory {
            samples = List.copyOf(samples);
            rewards = List.copyOf(rewards);
            if (samples.size() != rewards.size()) {
                throw new IllegalArgumentException("state groups need one sample per step of a trajectory (parallel"
                        + " rollouts of a task): problem " + problemId + " has " + rewards.size() + " steps and "
                        + samples.size() + " samples");
            }
        }
    }

    /** The episode advantages plus {@code weight} times each sample's step advantage. */
    public static List<ScoredSample> combine(List<ScoredSample> episodic, Map<Sample, Double> step, double weight) {
        List<ScoredSample> out = new ArrayList<>(episodic.size());
        for (ScoredSample s : episodic) {
            out.add(new ScoredSample(s.sample(), s.advantage() + weight * step.getOrDefault(s.sample(), 0.0)));
        }
        return out;
    }

    /** A step: its sample and its discounted return. */
    record Step(Sample sample, double ret) {}

    /**
     * Step groups in first-seen order: same role and an equal prompt (its messages and images), or with a threshold
     * below 1 a prompt text similar enough to the group's first.
     */
    static List<List<Step>> group(List<Step> steps, double similarity) {
        List<List<Step>> groups = new ArrayList<>();
        Map<List<Object>, List<Step>> exact = new LinkedHashMap<>();
        for (Step s : steps) {
            String role = s.sample().role();
            String text = s.sample().prompt().text();
            if (similarity >= 1) {
                exact.computeIfAbsent(List.of(role, s.sample().prompt()), k -> {
                            List<Step> g = new ArrayList<>();
                            groups.add(g);
                            return g;
                        })
                        .add(s);
                continue;
            }
            List<Step> home = null;
            for (List<Step> g : groups) {
                Sample first = g.get(0).sample();
                if (first.role().equals(role) && similarity(first.prompt().text(), text) >= similarity) {
                    home = g;
                    break;
                }
            }
            if (home == null) {
                home = new ArrayList<>();
                groups.add(home);
            }
            home.add(s);
        }
        return groups;
    }

    private static void scores(List<Step> group, boolean normalizeByStd, Map<Sample, Double> out) {
        int n = group.size();
        double mean = group.stream().mapToDouble(Step::ret).average().orElse(0);
        boolean constant = group.stream().allMatch(s -> s.ret() == group.get(0).ret());
        double var = 0;
        for (Step s : group) {
            var += (s.ret() - mean) * (s.ret() - mean);
        }
        double std = n > 1 ? Math.sqrt(var / (n - 1)) : 0; // unbiased, as the episode groups' (GroupStats)
        for (Step s : group) {
            double a =
                    n < 2 || constant ? 0 : normalizeByStd ? (s.ret() - mean) / (std + Advantages.EPS) : s.ret() - mean;
            out.put(s.sample(), a);
        }
    }

    /**
     * {@code 1 - levenshtein(a, b) / max(|a|, |b|)}: 1 for equal texts, 0 for texts with nothing in common; 1 for two
     * empty texts.
     */
    public static double similarity(String a, String b) {
        if (a.equals(b)) {
            return 1;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return 1 - prev[b.length()] / (double) Math.max(a.length(), b.length());
    }
}

package org.pettingllms.core.train;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.GroupStats;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.rollout.StepRecord;

/** The numbers of one training step under their {@link Metric} names. */
final class StepMetrics {
    private StepMetrics() {}

    /** Rollout numbers under {@code prefix} ("" for training, "val/" for validation). */
    static Map<String, Double> rollout(String prefix, RolloutResult r, List<String> roles) {
        Map<String, Double> m = new LinkedHashMap<>();
        RolloutStats stats = RolloutStats.of(r, roles);
        m.put(prefix + Metric.SUCCESS, stats.successRate());
        m.put(prefix + Metric.TURNS, stats.meanTurns());
        m.put(prefix + Metric.EPISODES, (double) stats.episodes());
        double team = 0;
        for (EpisodeResult e : r.episodes()) {
            for (StepRecord s : e.path()) {
                team += s.reward().team();
            }
        }
        m.put(prefix + Metric.TEAM_REWARD, team / Math.max(1, r.episodes().size()));
        stats.roles().forEach((role, s) -> {
            m.put(prefix + Metric.reward(role), s.pathReward());
            m.put(prefix + "reward/" + role + "/local", s.pathLocal());
            m.put(prefix + "reward/" + role + "/team", s.pathTeam());
            s.stops()
                    .forEach((outcome, frac) ->
                            m.put(prefix + "stop/" + role + "/" + outcome.name().toLowerCase(), frac));
        });
        return m;
    }

    /**
     * Training numbers. {@code sampled/<role>/solved|invalid|unparseable}: over every candidate the role sampled
     * (all K of each tree group, at the rollout temperature), the share whose own answer solved the problem, was
     * invalid or unparseable: the policy's one-sample success, where {@code success/rate} is that of the path the
     * rollout kept (best of K at each decision). {@code groups/constant_frac}: the share of groups whose rewards are
     * all equal, which teach nothing.
     */
    static Map<String, Double> training(
            List<Sample> samples,
            Map<GroupKey, List<Sample>> groups,
            List<ScoredSample> scored,
            Map<PolicyRef, Learner.LossStats> losses,
            Map<PolicyRef, Double> samplerGaps,
            Map<PolicyRef, Learner.OptimStats> optims) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(Metric.SAMPLES, (double) samples.size());
        m.put(Metric.SAMPLES_TRAINED, (double) scored.size());
        Map<String, List<Sample>> byRole = new LinkedHashMap<>();
        samples.forEach(
                s -> byRole.computeIfAbsent(s.role(), k -> new ArrayList<>()).add(s));
        byRole.forEach((role, list) -> {
            m.put(Metric.sampled(role, "solved"), share(list, StepOutcome.SOLVED));
            m.put(Metric.sampled(role, "invalid"), share(list, StepOutcome.INVALID_ACTION));
            m.put(Metric.sampled(role, "unparseable"), share(list, StepOutcome.UNPARSEABLE));
        });
        m.put(Metric.GROUPS, (double) groups.size());
        long constant = groups.values().stream()
                .filter(g -> GroupStats.of(g).constant())
                .count();
        m.put(Metric.GROUPS_CONSTANT, groups.isEmpty() ? 0.0 : constant / (double) groups.size());
        long nonZero = scored.stream().filter(s -> s.advantage() != 0).count();
        m.put(Metric.ADV_NONZERO, scored.isEmpty() ? 0.0 : nonZero / (double) scored.size());
        m.put(
                Metric.ADV_ABS_MEAN,
                scored.stream()
                        .mapToDouble(s -> Math.abs(s.advantage()))
                        .average()
                        .orElse(0));
        m.put(Metric.COMPLETION_TOKENS, (double)
                samples.stream().mapToLong(s -> s.completionTokens().size()).sum());
        m.put(Metric.PROMPT_TOKENS, (double)
                samples.stream().mapToLong(s -> s.promptTokens().size()).sum());
        losses.forEach((p, l) -> {
            m.put(Metric.train("loss", p), l.loss());
            m.put(Metric.train("clip_frac", p), l.clipFraction());
            m.put(Metric.train("kl", p), l.kl());
            m.put(Metric.train("policy_shift", p), l.logprobShift());
            m.put(Metric.train("sampler_gap", p), samplerGaps.getOrDefault(p, 0.0));
            m.put(Metric.train("tokens", p), (double) l.tokens());
        });
        optims.forEach((p, o) -> {
            m.put(Metric.train("grad_norm", p), o.gradNorm());
            m.put(Metric.train("lr", p), o.learningRate());
            m.put(Metric.train("skipped", p), o.skipped() ? 1.0 : 0.0);
        });
        return m;
    }

    /** State groups: the share of steps whose step advantage is not 0 (in a group of differing returns). */
    static Map<String, Double> stateGroups(Map<Sample, Double> stepAdvantages) {
        long nonZero = stepAdvantages.values().stream().filter(a -> a != 0).count();
        return Map.of(
                Metric.STATE_ADV_NONZERO, stepAdvantages.isEmpty() ? 0.0 : nonZero / (double) stepAdvantages.size());
    }

    private static double share(List<Sample> samples, StepOutcome stop) {
        return samples.isEmpty()
                ? 0
                : samples.stream().filter(s -> s.outcome() == stop).count() / (double) samples.size();
    }
}

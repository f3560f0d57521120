package org.pettingllms.core.train;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.GroupStats;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.GroupKey;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.rollout.RolloutStats;
import org.pettingllms.core.rollout.StepRecord;

/** The numbers of one training step, as slash-namespaced keys. */
final class StepMetrics {
    private StepMetrics() {
    }

    /** Rollout numbers under {@code prefix} ("" for training, "val/" for validation). */
    static Map<String, Object> rollout(String prefix, RolloutResult r, List<String> roles) {
        Map<String, Object> m = new LinkedHashMap<>();
        RolloutStats stats = RolloutStats.of(r, roles);
        m.put(prefix + "success/rate", stats.successRate());
        m.put(prefix + "episode/turns", stats.meanTurns());
        m.put(prefix + "episode/count", stats.episodes());
        double team = 0;
        for (EpisodeResult e : r.episodes()) {
            for (StepRecord s : e.path()) {
                team += s.reward().team();
            }
        }
        m.put(prefix + "reward/team/mean", team / Math.max(1, r.episodes().size()));
        stats.roles().forEach((role, s) -> {
            m.put(prefix + "reward/" + role + "/mean", s.pathReward());
            m.put(prefix + "reward/" + role + "/local", s.pathLocal());
            m.put(prefix + "reward/" + role + "/team", s.pathTeam());
            s.stops().forEach((stop, frac) -> m.put(prefix + "stop/" + role + "/" + stop.name().toLowerCase(), frac));
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
    static Map<String, Object> training(List<Sample> samples, Map<GroupKey, List<Sample>> groups,
                                        List<ScoredSample> scored, Map<PolicyRef, Learner.LossStats> losses,
                                        Map<PolicyRef, Double> samplerGaps, Map<PolicyRef, Learner.OptimStats> optims) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples/count", samples.size());
        m.put("samples/trained", scored.size());
        Map<String, List<Sample>> byRole = new LinkedHashMap<>();
        samples.forEach(s -> byRole.computeIfAbsent(s.role(), k -> new ArrayList<>()).add(s));
        byRole.forEach((role, list) -> {
            m.put("sampled/" + role + "/solved", share(list, StepOutcome.SOLVED));
            m.put("sampled/" + role + "/invalid", share(list, StepOutcome.INVALID_ACTION));
            m.put("sampled/" + role + "/unparseable", share(list, StepOutcome.UNPARSEABLE));
        });
        m.put("groups/count", groups.size());
        long constant = groups.values().stream().filter(g -> GroupStats.of(g).constant()).count();
        m.put("groups/constant_frac", groups.isEmpty() ? 0.0 : constant / (double) groups.size());
        long nonZero = scored.stream().filter(s -> s.advantage() != 0).count();
        m.put("adv/nonzero_frac", scored.isEmpty() ? 0.0 : nonZero / (double) scored.size());
        m.put("adv/abs_mean", scored.stream().mapToDouble(s -> Math.abs(s.advantage())).average().orElse(0));
        m.put("tokens/completion", samples.stream().mapToLong(s -> s.completionTokens().size()).sum());
        m.put("tokens/prompt", samples.stream().mapToLong(s -> s.promptTokens().size()).sum());
        losses.forEach((p, l) -> {
            String k = p.toString();
            m.put("train/loss/" + k, l.loss());
            m.put("train/clip_frac/" + k, l.clipFraction());
            m.put("train/kl/" + k, l.kl());
            m.put("train/policy_shift/" + k, l.logprobShift());
            m.put("train/sampler_gap/" + k, samplerGaps.getOrDefault(p, 0.0));
            m.put("train/tokens/" + k, l.tokens());
        });
        optims.forEach((p, o) -> {
            String k = p.toString();
            m.put("train/grad_norm/" + k, o.gradNorm());
            m.put("train/lr/" + k, o.learningRate());
            m.put("train/skipped/" + k, o.skipped() ? 1 : 0);
        });
        return m;
    }

    private static double share(List<Sample> samples, StepOutcome stop) {
        return samples.isEmpty() ? 0 : samples.stream().filter(s -> s.outcome() == stop).count() / (double) samples.size();
    }
}

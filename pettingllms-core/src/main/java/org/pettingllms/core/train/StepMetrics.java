package org.pettingllms.core.train;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.algo.ScoredSample;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.PolicyRef;
import org.pettingllms.core.data.Sample;
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

    static Map<String, Object> training(List<Sample> samples, List<ScoredSample> scored,
                                        Map<PolicyRef, Learner.LossStats> losses,
                                        Map<PolicyRef, Learner.OptimStats> optims) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples/count", samples.size());
        m.put("samples/trained", scored.size());
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
}

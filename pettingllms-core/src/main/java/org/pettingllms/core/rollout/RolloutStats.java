package org.pettingllms.core.rollout;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Sample;
import org.pettingllms.core.data.StepOutcome;

/**
 * What a rollout did, in numbers: success, turns, per-role rewards (along the chosen path and over all
 * candidates) and how often each role's answers were invalid or unparseable.
 */
public record RolloutStats(
        int episodes, double successRate, double meanTurns, long envSteps, int samples, Map<String, RoleStats> roles) {

    /**
     * @param pathReward    mean over episodes of the role's summed mixed reward along the chosen path
     * @param pathLocal     same, local part only
     * @param pathTeam      same, team part only
     * @param sampleReward  mean mixed reward over all the role's candidates
     * @param stops         fraction of the role's path steps per stop reason
     */
    public record RoleStats(
            double pathReward,
            double pathLocal,
            double pathTeam,
            double sampleReward,
            Map<StepOutcome, Double> stops) {}

    public static RolloutStats of(RolloutResult r, List<String> roles) {
        List<EpisodeResult> eps = r.episodes();
        int n = Math.max(1, eps.size());
        Map<String, RoleStats> perRole = new LinkedHashMap<>();
        for (String role : roles) {
            double reward = 0;
            double local = 0;
            double team = 0;
            int steps = 0;
            Map<StepOutcome, Double> stops = new EnumMap<>(StepOutcome.class);
            for (EpisodeResult e : eps) {
                for (StepRecord s : e.path()) {
                    if (s.role().equals(role)) {
                        reward += s.mixedReward();
                        local += s.reward().local();
                        team += s.reward().team();
                        stops.merge(s.outcome(), 1.0, Double::sum);
                        steps++;
                    }
                }
            }
            int stepCount = Math.max(1, steps);
            stops.replaceAll((k, v) -> v / stepCount);
            double sampleReward = r.samples().stream()
                    .filter(s -> s.role().equals(role))
                    .mapToDouble(Sample::reward)
                    .average()
                    .orElse(0);
            perRole.put(role, new RoleStats(reward / n, local / n, team / n, sampleReward, stops));
        }
        double success = eps.stream().filter(EpisodeResult::success).count() / (double) n;
        double turns = eps.stream().mapToInt(EpisodeResult::turns).average().orElse(0);
        return new RolloutStats(
                eps.size(), success, turns, r.envSteps(), r.samples().size(), perRole);
    }
}

package org.pettingllms.core.rollout;

import java.util.List;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Sample;

/**
 * One episode: the path taken, the outcome and the training samples it produced.
 *
 * @param trajectory index of the trajectory for its problem (0 in tree mode)
 * @param turns      turns started (1 + index of the last turn played)
 * @param envSteps   calls to {@code Task.step}, all candidates included
 */
public record EpisodeResult(
        Problem problem,
        int trajectory,
        List<StepRecord> path,
        boolean success,
        int turns,
        List<Sample> samples,
        long envSteps) {
    public EpisodeResult {
        path = List.copyOf(path);
        samples = List.copyOf(samples);
    }

    /** Sum of the mixed rewards along the path: the episode return used by parallel-sampling GRPO. */
    public double pathReturn() {
        return path.stream().mapToDouble(StepRecord::mixedReward).sum();
    }
}

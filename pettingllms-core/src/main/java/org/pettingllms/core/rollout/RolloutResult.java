package org.pettingllms.core.rollout;

import java.util.List;
import org.pettingllms.core.data.Sample;

/** All episodes of one rollout phase, in problem order (then trajectory order). */
public record RolloutResult(List<EpisodeResult> episodes, double wallSeconds) {
    public RolloutResult {
        episodes = List.copyOf(episodes);
    }

    public List<Sample> samples() {
        return episodes.stream().flatMap(e -> e.samples().stream()).toList();
    }

    public long envSteps() {
        return episodes.stream().mapToLong(EpisodeResult::envSteps).sum();
    }
}

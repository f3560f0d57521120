package org.pettingllms.core.data;

/**
 * The reward of one micro-step, kept in parts so that other mixes and per-part metrics are possible.
 *
 * @param local   the acting role's own reward
 * @param team    the shared team reward caused by this micro-step
 * @param process optional process (shaping) reward; 0 in the built-in tasks
 */
public record RewardParts(double local, double team, double process) {
    public static final RewardParts ZERO = new RewardParts(0, 0, 0);

    public RewardParts {
        if (!Double.isFinite(local) || !Double.isFinite(team) || !Double.isFinite(process)) {
            throw new IllegalArgumentException("reward parts must be finite: " + local + ", " + team + ", " + process);
        }
    }

    public RewardParts plus(RewardParts o) {
        return new RewardParts(local + o.local, team + o.team, process + o.process);
    }
}

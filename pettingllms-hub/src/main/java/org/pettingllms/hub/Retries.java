package org.pettingllms.hub;

import java.time.Duration;

/**
 * How often a request that failed for a passing reason (a refused or cut connection, a timeout, 5xx, 429) is
 * tried, and how long to wait in between: {@code firstDelay}, doubling, at most {@code maxDelay}. A download that
 * receives new bytes between two failures starts counting again, as huggingface_hub does.
 *
 * @param attempts tries in all, at least 1
 */
public record Retries(int attempts, Duration firstDelay, Duration maxDelay) {
    /** Five tries over about 7.5 s. */
    public static final Retries DEFAULT = new Retries(5, Duration.ofMillis(500), Duration.ofSeconds(4));

    public Retries {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
        }
    }

    /** The wait after the {@code failed}-th failure (1-based). */
    public Duration delay(int failed) {
        long ms = firstDelay.toMillis() << Math.min(20, Math.max(0, failed - 1));
        return Duration.ofMillis(Math.min(ms, maxDelay.toMillis()));
    }
}

package org.pettingllms.core.rollout;

/** An infrastructure failure during a rollout (a sampler or task bug), never a model's bad output. */
public final class RolloutException extends RuntimeException {
    public RolloutException(String message, Throwable cause) {
        super(message, cause);
    }

    public RolloutException(String message) {
        super(message);
    }
}

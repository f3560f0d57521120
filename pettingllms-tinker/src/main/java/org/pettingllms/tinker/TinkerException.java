package org.pettingllms.tinker;

/**
 * A Tinker request that failed for good: refused by the service (bad key, unknown model, invalid input), failed
 * while running, or not answered before its deadline. The message names the operation and what the service said.
 */
public final class TinkerException extends RuntimeException {
    private final int status;

    TinkerException(String message, int status) {
        this(message, status, null);
    }

    TinkerException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status that ended the request; 200 for a request that ran and failed, 0 without an answer. */
    public int status() {
        return status;
    }
}

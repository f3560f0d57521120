package org.pettingllms.hub;

/**
 * Why a model or dataset could not be had, in one line for people: the message names the repo, file or setting
 * and what to do. The reason lets callers react (the CLI retries a model repo that is not found as a dataset repo).
 */
public final class HubException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong; {@link #transientFailure()} tells the ones that a later attempt may not meet. */
    public enum Reason {
        /** a bad environment variable or token file */
        SETTINGS,
        /** a repo id, revision, hf:// URL or pattern that is not of the expected form */
        BAD_REQUEST,
        REPO_NOT_FOUND,
        GATED_REPO,
        /** the token was refused, or it may not read the repo */
        ACCESS_DENIED,
        REVISION_NOT_FOUND,
        ENTRY_NOT_FOUND,
        /** offline mode and the cache does not have it */
        NOT_CACHED,
        /** the endpoint could not be reached */
        NO_NETWORK,
        /** retried until the bounded count, still failing (5xx, 429, timeouts, cut connections) */
        UNAVAILABLE,
        /** the downloaded bytes do not match the checksum the Hub announced */
        CHECKSUM,
        DISK_FULL,
        /** the server answered something the Hub does not (missing headers, unknown status) */
        PROTOCOL,
        /** reading or writing the cache failed */
        CACHE_IO;

        public boolean transientFailure() {
            return this == NO_NETWORK || this == UNAVAILABLE;
        }
    }

    private final Reason reason;

    public HubException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public HubException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}

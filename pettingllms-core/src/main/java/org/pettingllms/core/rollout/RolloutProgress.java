package org.pettingllms.core.rollout;

/** Told as episodes finish, for a progress display; called from the episodes' threads. */
@FunctionalInterface
public interface RolloutProgress {
    RolloutProgress NONE = (done, total) -> {};

    void episodeDone(int done, int total);
}

package org.pettingllms.core.data;

/** Why the sampler stopped generating a completion. */
public enum FinishReason {
    /** end-of-sequence token or a stop token */
    EOS,
    /** a stop string was produced (it is not part of the text) */
    STOP_STRING,
    /** the max-token budget ran out: the answer may be truncated */
    LENGTH
}

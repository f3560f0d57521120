package org.pettingllms.langchain4j;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * One run of a program on one problem. Its first calls are answered from a recording (and must ask what the
 * recording asked, else {@link ReplayDivergence}); the calls after it by an {@link Answerer}.
 */
final class ProgramRun {
    /** Answers a call the recording does not cover. */
    @FunctionalInterface
    interface Answerer {
        Completion answer(int call, String role, PolicyRef policy, Prompt prompt, SamplingParams params);
    }

    /** A call's answer and its place in the run (0 for the first call), which replays repeat. */
    record Answered(int index, Completion completion) {}

    private final List<ProgramCall> recording;
    private final Answerer next;
    private final int maxCalls;
    private final List<ProgramCall> calls = new ArrayList<>();
    // a lock, not synchronized: a virtual thread blocked in the sampler must not pin its carrier (JDK 21)
    private final ReentrantLock lock = new ReentrantLock();
    private ReplayDivergence divergence;
    private IllegalStateException failure;

    ProgramRun(List<ProgramCall> recording, Answerer next, int maxCalls) {
        this.recording = List.copyOf(recording);
        this.next = next;
        this.maxCalls = maxCalls;
    }

    /**
     * A program's model call. Calls are answered one at a time, in the order they arrive: a program whose calls
     * overlap gets an order that a replay need not repeat, which is reported as a divergence.
     */
    Answered call(String role, PolicyRef policy, Prompt prompt, SamplingParams params) {
        return locked(() -> callLocked(role, policy, prompt, params));
    }

    private <T> T locked(Supplier<T> work) {
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    private Answered callLocked(String role, PolicyRef policy, Prompt prompt, SamplingParams params) {
        int i = calls.size();
        if (i >= maxCalls) {
            // remembered: a program that swallows it (a streaming handler's onError) still fails its rollout
            failure = new IllegalStateException(
                    "the program made more than " + maxCalls + " model calls on one problem (rollout.maxCalls)");
            throw failure;
        }
        Completion c;
        if (i < recording.size()) {
            ProgramCall r = recording.get(i);
            if (!r.role().equals(role) || !r.prompt().equals(prompt)) {
                divergence = new ReplayDivergence(i, r.role(), r.prompt(), role, prompt);
                throw divergence; // remembered: a program that catches it is still reported
            }
            c = r.completion();
        } else {
            c = next.answer(i, role, policy, prompt, params);
        }
        calls.add(new ProgramCall(role, policy, prompt, c));
        return new Answered(i, c);
    }

    List<ProgramCall> calls() {
        return locked(() -> List.copyOf(calls));
    }

    /** The call limit the run ran into, even if the program caught it; null if none. */
    IllegalStateException failure() {
        return locked(() -> failure);
    }

    /** The divergence a replay ran into, even if the program caught it; null if none. */
    ReplayDivergence divergence() {
        return locked(() -> divergence);
    }
}

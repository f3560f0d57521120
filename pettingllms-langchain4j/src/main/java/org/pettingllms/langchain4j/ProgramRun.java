package org.pettingllms.langchain4j;

import java.util.ArrayList;
import java.util.List;
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

    private final List<ProgramCall> recording;
    private final Answerer next;
    private final int maxCalls;
    private final List<ProgramCall> calls = new ArrayList<>();

    ProgramRun(List<ProgramCall> recording, Answerer next, int maxCalls) {
        this.recording = List.copyOf(recording);
        this.next = next;
        this.maxCalls = maxCalls;
    }

    /** A program's model call, in the order the program makes them. */
    synchronized Completion call(String role, PolicyRef policy, Prompt prompt, SamplingParams params) {
        int i = calls.size();
        if (i >= maxCalls) {
            throw new IllegalStateException(
                    "the program made more than " + maxCalls + " model calls on one problem (rollout.maxCalls)");
        }
        Completion c;
        if (i < recording.size()) {
            ProgramCall r = recording.get(i);
            if (!r.role().equals(role) || !r.prompt().equals(prompt)) {
                throw new ReplayDivergence(i, r.role(), r.prompt(), role, prompt);
            }
            c = r.completion();
        } else {
            c = next.answer(i, role, policy, prompt, params);
        }
        calls.add(new ProgramCall(role, policy, prompt, c));
        return c;
    }

    synchronized List<ProgramCall> calls() {
        return List.copyOf(calls);
    }
}

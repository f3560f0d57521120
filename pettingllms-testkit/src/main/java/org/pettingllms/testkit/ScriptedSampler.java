package org.pettingllms.testkit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.ToLongFunction;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.backend.TextPolicySampler;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * A sampler driven by a script, recording every call. Thread-safe: the rollout engine calls it from concurrent
 * episodes. Completions carry code-point tokens and logprobs of 0 (see {@link TextPolicySampler}).
 */
public final class ScriptedSampler implements Sampler {
    /** One recorded request and what it returned. */
    public record Call(PolicyRef policy, Prompt prompt, int n, SamplingParams params, List<Completion> completions) {}

    /** A script that sees the candidate index: answer {@code candidate} of {@code n} for this prompt. */
    @FunctionalInterface
    public interface CandidateScript {
        String answer(PolicyRef policy, Prompt prompt, int candidate);
    }

    private final Sampler delegate;
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());

    private ScriptedSampler(Sampler delegate) {
        this.delegate = delegate;
    }

    /** Answers from a seeded policy. */
    public static ScriptedSampler of(TextPolicy policy) {
        return new ScriptedSampler(new TextPolicySampler(policy));
    }

    /** Answers from a seeded policy, stamped with each policy's current weight version. */
    public static ScriptedSampler of(TextPolicy policy, ToLongFunction<PolicyRef> versions) {
        return new ScriptedSampler(new TextPolicySampler(policy, versions));
    }

    /** Answers chosen by candidate index: {@code answers(policy, prompt, c)} for c = 0..n-1. */
    public static ScriptedSampler byCandidate(CandidateScript script) {
        return new ScriptedSampler((policy, prompt, n, params) -> {
            List<Completion> out = new ArrayList<>(n);
            for (int c = 0; c < n; c++) {
                out.add(Completion.ofText(script.answer(policy, prompt, c)));
            }
            return out;
        });
    }

    /** Always the same answer. */
    public static ScriptedSampler constant(String answer) {
        return byCandidate((p, prompt, c) -> answer);
    }

    @Override
    public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
        List<Completion> out = delegate.sample(policy, prompt, n, params);
        calls.add(new Call(policy, prompt, n, params, List.copyOf(out)));
        return out;
    }

    /** A snapshot of the calls so far (order across concurrent episodes is not defined). */
    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }
}

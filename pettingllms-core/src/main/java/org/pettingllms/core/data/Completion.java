package org.pettingllms.core.data;

import java.util.Objects;

/**
 * One sampled answer.
 *
 * @param promptTokens  the token ids the model was conditioned on (shared by the K candidates of a group)
 * @param tokens        the generated token ids
 * @param logprobs      log-probability of each generated token under the sampling weights at temperature 1;
 *                      the PPO ratio's denominator
 * @param text          the decoded text of {@code tokens}
 * @param finish        why generation stopped
 * @param weightVersion version of the weights that produced it (strict on-policy training asserts on it)
 * @param source        where it was sampled: empty in-process, else the server and the served model name
 *                      ({@code http://gpu1:8000 plan-v12})
 */
public record Completion(
        IntSeq promptTokens,
        IntSeq tokens,
        FloatSeq logprobs,
        String text,
        FinishReason finish,
        long weightVersion,
        String source) {
    /** A completion sampled in-process. */
    public Completion(
            IntSeq promptTokens,
            IntSeq tokens,
            FloatSeq logprobs,
            String text,
            FinishReason finish,
            long weightVersion) {
        this(promptTokens, tokens, logprobs, text, finish, weightVersion, "");
    }

    public Completion {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(promptTokens, "promptTokens");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(logprobs, "logprobs");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(finish, "finish");
        if (tokens.size() != logprobs.size()) {
            throw new IllegalArgumentException("a completion needs one logprob per token: " + tokens.size()
                    + " tokens, " + logprobs.size() + " logprobs");
        }
    }

    /** A completion that carries only text (tests, scripted policies): no tokens, no logprobs. */
    public static Completion ofText(String text) {
        return new Completion(IntSeq.empty(), IntSeq.empty(), FloatSeq.empty(), text, FinishReason.EOS, 0);
    }
}

package org.pettingllms.core.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.util.Seeds;

/**
 * A {@link Sampler} over a {@link TextPolicy}. Tokens are Unicode code points (a character-level stand-in for a
 * tokenizer) and every logprob is 0, as for a deterministic policy. Candidate {@code i} of a request uses the
 * seed {@code derive(params.seed, i)}, so the same request gives the same answers.
 */
public final class TextPolicySampler implements Sampler {
    private final TextPolicy policy;

    public TextPolicySampler(TextPolicy policy) {
        this.policy = policy;
    }

    @Override
    public List<Completion> sample(PolicyRef ref, Prompt prompt, int n, SamplingParams params) {
        IntSeq promptTokens = IntSeq.of(prompt.text().codePoints().toArray());
        List<Completion> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String text = policy.answer(ref, prompt, new SplittableRandom(Seeds.derive(params.seed(), i)));
            int[] tokens = text.codePoints().limit(params.maxTokens()).toArray();
            boolean truncated = tokens.length < text.codePointCount(0, text.length());
            String kept = truncated ? new String(tokens, 0, tokens.length) : text;
            out.add(new Completion(promptTokens, IntSeq.of(tokens), FloatSeq.of(new float[tokens.length]), kept,
                    truncated ? FinishReason.LENGTH : FinishReason.EOS, 0));
        }
        return out;
    }
}

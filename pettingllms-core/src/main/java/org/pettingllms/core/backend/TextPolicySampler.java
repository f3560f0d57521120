package org.pettingllms.core.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.util.Seeds;

/**
 * A {@link Sampler} over a {@link TextPolicy}, honouring stop strings and the token budget. Tokens are Unicode code points (a character-level stand-in for a
 * tokenizer) and every logprob is 0, as for a deterministic policy. Candidate {@code i} of a request uses the
 * seed {@code derive(params.seed, i)}, so the same request gives the same answers.
 */
public final class TextPolicySampler implements Sampler {
    private final TextPolicy policy;
    private final ToLongFunction<PolicyRef> versions;

    public TextPolicySampler(TextPolicy policy) {
        this(policy, p -> 0);
    }

    /** @param versions the weight version to stamp on a policy's completions (its published version) */
    public TextPolicySampler(TextPolicy policy, ToLongFunction<PolicyRef> versions) {
        this.policy = policy;
        this.versions = versions;
    }

    @Override
    public List<Completion> sample(PolicyRef ref, Prompt prompt, int n, SamplingParams params) {
        IntSeq promptTokens = IntSeq.of(prompt.text().codePoints().toArray());
        long version = versions.applyAsLong(ref);
        List<Completion> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String text = policy.answer(ref, prompt, new SplittableRandom(Seeds.derive(params.seed(), i)));
            FinishReason finish = FinishReason.EOS;
            for (String stop : params.stop()) {
                int at = stop.isEmpty() ? -1 : text.indexOf(stop);
                if (at >= 0) {
                    text = text.substring(0, at);
                    finish = FinishReason.STOP_STRING;
                }
            }
            int[] tokens = text.codePoints().limit(params.maxTokens()).toArray();
            if (tokens.length < text.codePointCount(0, text.length())) {
                text = new String(tokens, 0, tokens.length);
                finish = FinishReason.LENGTH;
            }
            out.add(new Completion(
                    promptTokens, IntSeq.of(tokens), FloatSeq.of(new float[tokens.length]), text, finish, version));
        }
        return out;
    }
}

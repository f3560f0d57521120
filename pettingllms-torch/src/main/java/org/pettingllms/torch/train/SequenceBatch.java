package org.pettingllms.torch.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.LoraRows;

/**
 * (prompt, completion) rows for training: left-padded full sequences, the target of every position (the next
 * token), and a mask that selects the positions predicting completion tokens. Gradients flow only through the
 * completion tokens' log-probabilities.
 */
public final class SequenceBatch {
    private final List<int[]> prompts;
    private final List<int[]> completions;

    public SequenceBatch(List<int[]> prompts, List<int[]> completions) {
        if (prompts.size() != completions.size() || prompts.isEmpty()) {
            throw new IllegalArgumentException("need as many prompts as completions, and at least one");
        }
        this.prompts = prompts;
        this.completions = completions;
    }

    public int size() {
        return prompts.size();
    }

    public long completionTokens() {
        return completions.stream().mapToLong(c -> c.length).sum();
    }

    /** Log-probabilities, completion mask and (when asked) entropies, all [B, W-1] in {@code scope}. */
    public record Logprobs(NDArray logprobs, NDArray mask, NDArray entropy, int width) {
    }

    public Logprobs logprobs(DecoderModel model, NDManager scope, LoraRows lora) {
        return logprobs(model, scope, lora, false);
    }

    /**
     * {@code log p(x_{s+1} | x_{<=s})} for every position s of every row (inside a gradient collector they carry
     * gradients), and the mask of positions whose target is a completion token.
     */
    public Logprobs logprobs(DecoderModel model, NDManager scope, LoraRows lora, boolean withEntropy) {
        List<int[]> seqs = new ArrayList<>();
        for (int i = 0; i < prompts.size(); i++) {
            int[] p = prompts.get(i);
            int[] c = completions.get(i);
            int[] s = new int[p.length + c.length];
            System.arraycopy(p, 0, s, 0, p.length);
            System.arraycopy(c, 0, s, p.length, c.length);
            seqs.add(s);
        }
        Inputs.Batch in = Inputs.leftPadded(scope, seqs, 0);
        int w = in.width();
        int b = seqs.size();
        long[] targets = new long[b * (w - 1)];
        float[] mask = new float[b * (w - 1)];
        for (int r = 0; r < b; r++) {
            int[] s = seqs.get(r);
            int pad = w - s.length;
            int firstCompletion = pad + prompts.get(r).length; // padded index of the first completion token
            for (int pos = 0; pos < w - 1; pos++) {
                int target = pos + 1;
                targets[r * (w - 1) + pos] = target >= pad ? s[target - pad] : 0;
                mask[r * (w - 1) + pos] = target >= firstCompletion ? 1f : 0f;
            }
        }
        NDArray logits = model.forward(in.ids(), in.positions(), in.bias(), null, lora);
        NDArray shifted = logits.get(":, :-1, :");
        NDArray logp = shifted.logSoftmax(-1);
        NDArray idx = scope.create(targets, new Shape(b, w - 1, 1));
        NDArray picked = logp.gather(idx, 2).squeeze(2);
        NDArray entropy = withEntropy ? logp.exp().mul(logp).sum(new int[] {2}).neg() : null;
        return new Logprobs(picked, scope.create(mask, new Shape(b, w - 1)), entropy, w);
    }

    /** Old (sampling) logprobs laid out like {@link Logprobs#logprobs()}: row r's completion tokens at the end. */
    public NDArray alignCompletionValues(NDManager scope, List<float[]> perRow, int width) {
        int b = perRow.size();
        float[] out = new float[b * (width - 1)];
        for (int r = 0; r < b; r++) {
            float[] v = perRow.get(r);
            int start = (width - 1) - v.length;
            System.arraycopy(v, 0, out, r * (width - 1) + start, v.length);
        }
        return scope.create(out, new Shape(b, width - 1));
    }
}

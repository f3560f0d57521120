package org.pettingllms.torch.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Image;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.model.SharedPrefix;

/**
 * (prompt, completion) rows for training: left-padded full sequences, the target of every position (the next
 * token), and a mask that selects the positions predicting completion tokens. Gradients flow only through the
 * completion tokens' log-probabilities.
 */
public final class SequenceBatch {
    private final List<int[]> prompts;
    private final List<int[]> completions;
    /** Each row's prompt images, in order (empty lists for text). */
    private final List<List<Image>> images;

    public SequenceBatch(List<int[]> prompts, List<int[]> completions) {
        this(prompts, completions, Collections.nCopies(prompts.size(), List.of()));
    }

    public SequenceBatch(List<int[]> prompts, List<int[]> completions, List<List<Image>> images) {
        if (prompts.size() != completions.size() || prompts.isEmpty() || images.size() != prompts.size()) {
            throw new IllegalArgumentException(
                    "need as many prompts as completions (and image lists), and at least one");
        }
        this.prompts = prompts;
        this.completions = completions;
        this.images = images;
    }

    /** The rows of training examples: their prompts (with their images) and completions. */
    public static SequenceBatch of(List<TrainExample> examples) {
        return new SequenceBatch(
                examples.stream().map(e -> e.promptTokens().toArray()).toList(),
                examples.stream().map(e -> e.completionTokens().toArray()).toList(),
                examples.stream().map(TrainExample::images).toList());
    }

    private boolean anyImages(List<List<Image>> lists) {
        return lists.stream().anyMatch(l -> !l.isEmpty());
    }

    public int size() {
        return prompts.size();
    }

    public long completionTokens() {
        return completions.stream().mapToLong(c -> c.length).sum();
    }

    /**
     * Log-probabilities, completion mask and (when asked) entropies, all [B, columns] in {@code scope}; row r's
     * completion values start at column {@code starts[r]}.
     */
    public record Logprobs(NDArray logprobs, NDArray mask, NDArray entropy, int columns, int[] starts) {
        /** Per-row host values (old logprobs) laid out like {@link #logprobs()}. */
        public NDArray align(NDManager scope, List<float[]> perRow) {
            float[] out = new float[perRow.size() * columns];
            for (int r = 0; r < perRow.size(); r++) {
                System.arraycopy(perRow.get(r), 0, out, r * columns + starts[r], perRow.get(r).length);
            }
            return scope.create(out, new Shape(perRow.size(), columns));
        }

        /** Row r's {@code length} completion values out of the flat host copy of a [B, columns] result. */
        public float[] row(float[] flat, int r, int length) {
            return Arrays.copyOfRange(flat, r * columns + starts[r], r * columns + starts[r] + length);
        }
    }

    /**
     * As {@link #logprobs(DecoderModel, NDManager, LoraRows, boolean)} with one adapter (or none) for every row;
     * with {@code share}, rows with the same prompt run the prompt once (see {@link #sharedLogprobs}).
     */
    public Logprobs logprobs(
            DecoderModel model, NDManager scope, LoraAdapter adapter, boolean withEntropy, boolean share) {
        int[] source = new int[size()];
        // a prompt is its ids and its images: the same placeholders can stand for different pictures
        List<List<Object>> keys = new ArrayList<>();
        for (int i = 0; i < size(); i++) {
            keys.add(List.of(IntBuffer.wrap(prompts.get(i)), images.get(i)));
        }
        int[] first = Inputs.firstOfEach(keys, source);
        boolean anyCompletion = completions.stream().anyMatch(c -> c.length > 0);
        if (share && first.length < size() && anyCompletion) {
            List<int[]> unique = Arrays.stream(first).mapToObj(prompts::get).toList();
            List<List<Image>> uniqueImages =
                    Arrays.stream(first).mapToObj(images::get).toList();
            return sharedLogprobs(model, scope, adapter, withEntropy, unique, uniqueImages, source);
        }
        return logprobs(model, scope, adapter == null ? null : LoraRows.all(adapter, size()), withEntropy);
    }

    public Logprobs logprobs(DecoderModel model, NDManager scope, LoraRows lora) {
        return logprobs(model, scope, lora, false);
    }

    /**
     * {@code log p(x_{s+1} | x_{<=s})} for every position s of every row (inside a gradient collector they carry
     * gradients), and the mask of positions whose target is a completion token.
     */
    public Logprobs logprobs(DecoderModel model, NDManager scope, LoraRows lora, boolean withEntropy) {
        Forward f = forward(model, scope, lora);
        return picked(scope, f.predicting(), f.targets(), f.mask(), withEntropy, f.starts());
    }

    /**
     * The {@code n} most likely next tokens at every completion position of every row, best first, under the raw
     * model distribution (log-softmax of the logits, no temperature: what vLLM reports as top logprobs): per row, per
     * completion token, {@code n} ids and their log-probabilities.
     */
    public List<Top> topLogprobs(DecoderModel model, NDManager scope, LoraRows lora, int n) {
        Forward f = forward(model, scope, lora);
        NDArray logp = f.predicting().logSoftmax(-1);
        long b = logp.getShape().get(0);
        float[] chosen = logp.gather(scope.create(f.targets(), new Shape(b, f.columns(), 1)), 2)
                .squeeze(2)
                .toFloatArray();
        ai.djl.ndarray.NDList top = logp.topK(n, -1, true, true);
        float[] values =
                top.get(0).toType(ai.djl.ndarray.types.DataType.FLOAT32, false).toFloatArray();
        long[] ids =
                top.get(1).toType(ai.djl.ndarray.types.DataType.INT64, false).toLongArray();
        int c = f.columns();
        List<Top> out = new ArrayList<>();
        for (int r = 0; r < size(); r++) {
            int len = completions.get(r).length;
            int[][] rowIds = new int[len][n];
            float[][] rowLp = new float[len][n];
            float[] rowChosen = new float[len];
            for (int t = 0; t < len; t++) {
                rowChosen[t] = chosen[r * c + f.starts()[r] + t];
                int base = ((r * c) + f.starts()[r] + t) * n;
                for (int k = 0; k < n; k++) {
                    rowIds[t][k] = (int) ids[base + k];
                    rowLp[t][k] = values[base + k];
                }
            }
            out.add(new Top(rowIds, rowLp, rowChosen));
        }
        return out;
    }

    /**
     * One row's top tokens: for each completion token, the ids and log-probabilities of the most likely, best first,
     * and the raw log-probability of the token that was there ({@code chosen}).
     */
    public record Top(int[][] ids, float[][] logprobs, float[] chosen) {}

    /** A forward pass's next-token logits [B, columns, V], the targets and completion mask, the rows' first columns. */
    private record Forward(NDArray predicting, long[] targets, float[] mask, int[] starts, int columns) {}

    private Forward forward(DecoderModel model, NDManager scope, LoraRows lora) {
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
        NDArray logits;
        if (model.inputEncoder() != null || anyImages(images)) {
            // the completion is text after the prompt: the family's positions continue through it
            int[] promptLengths = prompts.stream().mapToInt(p -> p.length).toArray();
            InputEncoder.Encoded e = model.requireInputEncoder().encode(model, in, seqs, promptLengths, images, scope);
            logits = model.forwardEmbeddings(e.embeddings(), e.positions(), in.bias(), null, lora, false);
        } else {
            logits = model.forward(in.ids(), in.positions(), in.bias(), null, lora);
        }
        int[] starts = new int[b];
        for (int r = 0; r < b; r++) {
            starts[r] = (w - 1) - completions.get(r).length; // completion values are right-aligned
        }
        return new Forward(logits.get(":, :-1, :"), targets, mask, starts, w - 1);
    }

    /**
     * {@code log p(target)} at every column of {@code predicting} [B, C, V] (and the entropies when asked), with
     * the mask and the rows' starting columns.
     */
    private static Logprobs picked(
            NDManager scope, NDArray predicting, long[] targets, float[] mask, boolean withEntropy, int[] starts) {
        long b = predicting.getShape().get(0);
        int c = (int) predicting.getShape().get(1);
        NDArray logp = predicting.logSoftmax(-1);
        NDArray picked =
                logp.gather(scope.create(targets, new Shape(b, c, 1)), 2).squeeze(2);
        NDArray entropy = withEntropy ? logp.exp().mul(logp).sum(new int[] {2}).neg() : null;
        return new Logprobs(picked, scope.create(mask, new Shape(b, c)), entropy, c, starts);
    }

    /**
     * The same values as the unshared forward, computed with one prompt pass per distinct prompt: the U prompts,
     * left-padded, run once and keep their keys and values ({@link SharedPrefix}); the N completions, right-padded,
     * run after them, each attending to its prompt's keys (gathered, so gradients sum back into the one prompt
     * pass) and to its own earlier tokens. A completion's first token is predicted by its prompt's last position.
     * Completion values are left-aligned: row r's start at column 0.
     */
    private Logprobs sharedLogprobs(
            DecoderModel model,
            NDManager scope,
            LoraAdapter adapter,
            boolean withEntropy,
            List<int[]> unique,
            List<List<Image>> uniqueImages,
            int[] source) {
        int n = size();
        int u = unique.size();
        Inputs.Batch in = Inputs.leftPadded(scope, unique, 0);
        int wp = in.width();
        SharedPrefix prefix = new SharedPrefix(model.config().numLayers());
        LoraRows promptRows = adapter == null ? null : LoraRows.all(adapter, u);
        long[] deltas = new long[u]; // M-RoPE: a completion continues at its prompt's length plus this
        NDArray promptLast; // [U, V]: predicts each first completion token
        if (model.inputEncoder() != null || anyImages(uniqueImages)) {
            int[] lengths = unique.stream().mapToInt(p -> p.length).toArray();
            InputEncoder.Encoded e =
                    model.requireInputEncoder().encode(model, in, unique, lengths, uniqueImages, scope);
            promptLast = model.forwardEmbeddings(
                    e.embeddings(), e.positions(), in.bias(), prefix.capture(), promptRows, true);
            deltas = e.deltas();
        } else {
            promptLast = model.lastLogits(in.ids(), in.positions(), in.bias(), prefix.capture(), promptRows);
        }
        int wc = completions.stream().mapToInt(c -> c.length).max().orElseThrow(); // > 0: checked by the caller
        long[] ids = new long[n * wc]; // also the targets: column j holds log p(c_j | prompt, c_<j)
        long[] pos = new long[n * wc];
        float[] mask = new float[n * wc];
        float[] bias = new float[n * wc * (wp + wc)];
        long[] rows = new long[n];
        for (int r = 0; r < n; r++) {
            int[] c = completions.get(r);
            int promptLength = unique.get(source[r]).length;
            rows[r] = source[r];
            for (int j = 0; j < wc; j++) {
                int at = r * wc + j;
                ids[at] = j < c.length ? c[j] : 0;
                pos[at] = promptLength + deltas[source[r]] + j;
                mask[at] = j < c.length ? 1f : 0f;
                for (int k = 0; k < wp + wc; k++) {
                    boolean ok = k < wp ? in.valid()[source[r]][k] : k - wp <= j;
                    bias[at * (wp + wc) + k] = ok ? 0f : Inputs.MASKED;
                }
            }
        }
        NDArray rowIndex = scope.create(rows);
        NDArray logits = model.forward(
                scope.create(ids, new Shape(n, wc)),
                scope.create(pos, new Shape(n, wc)),
                scope.create(bias, new Shape(n, 1, wc, wp + wc)),
                prefix.extend(rowIndex),
                adapter == null ? null : LoraRows.all(adapter, n)); // [N, Wc, V]
        NDArray first = promptLast.get(rowIndex).expandDims(1); // [N, 1, V]
        NDArray predicting = wc == 1 ? first : first.concat(logits.get(":, :-1, :"), 1);
        return picked(scope, predicting, ids, mask, withEntropy, new int[n]);
    }
}

package org.pettingllms.torch.sampling;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.Image;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.KvCache;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;

/**
 * Batched generation with a KV cache: one prefill of the left-padded prompts, then one decode step per token for
 * the rows still running. Rows may use different LoRA adapters and sampling settings. Rows that share their
 * prompt and adapter (the K candidates of a tree group, parallel rollouts' first turn) share one prefill. Finished
 * rows leave the batch (their cache rows are dropped).
 */
public final class Generator {
    private Generator() {}

    /**
     * One sequence to generate.
     *
     * @param stopTokens token ids that end the row (kept as the last token: the model learns to stop)
     * @param stopCheck  called with the generated tokens after each step; true ends the row as a stop string
     * @param images     the prompt's images in order (its ids hold their expanded placeholders); empty for text
     */
    public record Request(
            int[] prompt,
            LoraAdapter adapter,
            double temperature,
            int topK,
            double topP,
            int maxTokens,
            int[] stopTokens,
            Predicate<int[]> stopCheck,
            long seed,
            List<Image> images) {
        /** A text-only request. */
        public Request(
                int[] prompt,
                LoraAdapter adapter,
                double temperature,
                int topK,
                double topP,
                int maxTokens,
                int[] stopTokens,
                Predicate<int[]> stopCheck,
                long seed) {
            this(prompt, adapter, temperature, topK, topP, maxTokens, stopTokens, stopCheck, seed, List.of());
        }

        public Request {
            images = List.copyOf(images);
            if (prompt.length == 0) {
                throw new IllegalArgumentException("a prompt needs at least one token");
            }
        }

        public static Request greedy(int[] prompt, int maxTokens, LoraAdapter adapter) {
            return new Request(prompt, adapter, 0, 0, 1, maxTokens, new int[0], null, 0);
        }
    }

    /** Generated tokens, the logprob of each at temperature 1, and why the row stopped. */
    public record Result(int[] tokens, float[] logprobs, FinishReason finish) {}

    public static List<Result> generate(DecoderModel model, List<Request> requests) {
        return generate(model, requests, true);
    }

    /** As {@link #generate(DecoderModel, List)}; {@code sharePrefill} false prefills every row itself (benchmarks). */
    public static List<Result> generate(DecoderModel model, List<Request> requests, boolean sharePrefill) {
        int n = requests.size();
        List<List<Integer>> tokens = new ArrayList<>();
        List<List<Float>> logprobs = new ArrayList<>();
        FinishReason[] finish = new FinishReason[n];
        SplittableRandom[] rngs = new SplittableRandom[n];
        for (int i = 0; i < n; i++) {
            tokens.add(new ArrayList<>());
            logprobs.add(new ArrayList<>());
            rngs[i] = new SplittableRandom(requests.get(i).seed());
        }
        // sampling never needs gradients; without this, a thread where PyTorch records them (every thread but the
        // one that started the engine) would build an autograd graph through adapters and trainable weights
        try (Torch.NoGradients noGrad = Torch.noGradients();
                NDManager gen = model.manager().newSubManager()) {
            int width = requests.stream().mapToInt(r -> r.prompt().length).max().orElse(0);
            int maxNew = requests.stream().mapToInt(Request::maxTokens).max().orElse(0);
            long rowCapacity = width + maxNew;
            // rows with the same prompt and adapter (a tree group's K candidates) are prefilled once; they then
            // decode in the group layout (GroupDecoding) when their groups are about equal in size, otherwise the
            // prompt's cache row and first distribution are copied to each of them
            int[] source = new int[n];
            int[] unique = sharePrefill
                    ? sharedPrompts(requests, source)
                    : Inputs.firstOfEach(IntStream.range(0, n).boxed().toList(), source);
            int largest = GroupDecoding.largest(source, unique.length);
            boolean grouped = sharePrefill && GroupDecoding.suits(unique.length, largest, n);
            KvCache cache = new KvCache(
                    gen,
                    model.config().numLayers(),
                    grouped ? GroupDecoding.capacity(width, largest, maxNew) : rowCapacity);
            List<LoraAdapter> adapters = requests.stream().map(Request::adapter).toList();
            List<LoraAdapter> uniqueAdapters =
                    Arrays.stream(unique).mapToObj(adapters::get).toList();
            long[] nextPos = new long[n];
            int[] lastToken = new int[n];
            for (int i = 0; i < n; i++) {
                nextPos[i] = requests.get(i).prompt().length;
            }
            int[] active = IntStream.range(0, n).toArray(); // the rows whose picks last holds
            TokenSampler.Pick[] last;
            DecodeLayout layout;
            try (NDManager step = gen.newSubManager()) {
                List<int[]> prompts = Arrays.stream(unique)
                        .mapToObj(u -> requests.get(u).prompt())
                        .toList();
                Inputs.Batch in = Inputs.leftPadded(step, prompts, 0);
                List<List<Image>> images = Arrays.stream(unique)
                        .mapToObj(u -> requests.get(u).images())
                        .toList();
                NDArray logits;
                // a vision-language model's prompts always go through its encoder: it also refuses placeholders
                // that come without their image
                if (model.inputEncoder() == null && images.stream().allMatch(List::isEmpty)) {
                    logits = model.lastLogits(in.ids(), in.positions(), in.bias(), cache, rows(uniqueAdapters));
                } else {
                    // images: the family's input embeddings and M-RoPE positions; each row then decodes from its
                    // length plus its prompt's rope delta (one position on all three axes)
                    int[] lengths = prompts.stream().mapToInt(p -> p.length).toArray();
                    InputEncoder.Encoded e =
                            model.requireInputEncoder().encode(model, in, prompts, lengths, images, step);
                    logits = model.forwardEmbeddings(
                            e.embeddings(), e.positions(), in.bias(), cache, rows(uniqueAdapters), true);
                    for (int i = 0; i < n; i++) {
                        nextPos[i] += e.deltas()[source[i]];
                    }
                }
                NDArray index = step.create(Arrays.stream(source).asLongStream().toArray());
                if (grouped) {
                    layout = new GroupDecoding(source, in.valid(), uniqueAdapters);
                } else {
                    if (unique.length < n) {
                        cache.select(index);
                    }
                    boolean[][] valid = new boolean[n][];
                    Arrays.setAll(valid, i -> in.valid()[source[i]].clone());
                    layout = new RowDecoding(active, valid, adapters);
                }
                last = picks(logits.get(index), requests, active, rngs); // row i's first is its prompt's
            }
            while (true) {
                int running = 0;
                for (int a = 0; a < active.length; a++) {
                    int r = active[a];
                    Request req = requests.get(r);
                    TokenSampler.Pick p = last[a];
                    tokens.get(r).add(p.token());
                    logprobs.get(r).add(p.logprob());
                    lastToken[r] = p.token();
                    finish[r] = finished(req, tokens.get(r), p.token());
                    running += finish[r] == null ? 1 : 0;
                }
                if (running == 0) {
                    break;
                }
                try (NDManager step = gen.newSubManager()) {
                    layout.drop(finish, cache, step);
                    if (layout instanceof GroupDecoding g && !g.worthKeeping()) {
                        layout = g.toRows(cache, rowCapacity, step, adapters);
                    }
                    NDArray logits = layout.step(model, cache, lastToken, nextPos, step);
                    active = layout.running();
                    last = picks(logits, requests, active, rngs);
                }
            }
        }
        List<Result> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int[] t = tokens.get(i).stream().mapToInt(Integer::intValue).toArray();
            float[] lp = new float[t.length];
            for (int j = 0; j < lp.length; j++) {
                lp[j] = logprobs.get(i).get(j);
            }
            out.add(new Result(t, lp, finish[i]));
        }
        return out;
    }

    /**
     * The first request of each distinct (prompt, adapter) pair, in first-seen order; {@code source[i]} is the
     * place among them of request i's pair.
     */
    public static int[] sharedPrompts(List<Request> requests, int[] source) {
        return Inputs.firstOfEach(requests.stream().map(PromptKey::of).toList(), source);
    }

    /**
     * A prompt's tokens and images (by content) with its adapter (by identity: the same adapter object is the same
     * weights).
     */
    private record PromptKey(int[] prompt, List<Image> images, LoraAdapter adapter) {
        static PromptKey of(Request r) {
            return new PromptKey(r.prompt(), r.images(), r.adapter());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PromptKey k
                    && k.adapter == adapter
                    && Arrays.equals(k.prompt, prompt)
                    && k.images.equals(images);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(prompt) * 31 + System.identityHashCode(adapter);
        }
    }

    private static FinishReason finished(Request req, List<Integer> generated, int token) {
        for (int s : req.stopTokens()) {
            if (s == token) {
                return FinishReason.EOS;
            }
        }
        if (req.stopCheck() != null
                && req.stopCheck()
                        .test(generated.stream().mapToInt(Integer::intValue).toArray())) {
            return FinishReason.STOP_STRING;
        }
        return generated.size() >= req.maxTokens() ? FinishReason.LENGTH : null;
    }

    /** The adapters of a batch's rows, or null when no row has one. */
    static LoraRows rows(List<LoraAdapter> perRow) {
        LoraRows rows = LoraRows.of(perRow);
        return rows.none() ? null : rows;
    }

    /**
     * Sampling on the device for every batch, also on a CPU (tests compare it with the host path); otherwise only
     * where the logits are on a GPU.
     */
    static volatile boolean sampleOnDeviceAlways = false;

    /**
     * Each active row's next token and its temperature-1 logprob. On a GPU, when every row is greedy or samples the
     * untruncated distribution, the choice is made there and only the tokens and logprobs come back
     * ({@link #picksOnDevice}); otherwise, and on a CPU, both distributions come to the host and
     * {@link TokenSampler} picks. Each row draws from its own generator in both, at the same points.
     */
    static TokenSampler.Pick[] picks(NDArray logits, List<Request> requests, int[] active, SplittableRandom[] rngs) {
        boolean untruncated = Arrays.stream(active)
                .mapToObj(requests::get)
                .allMatch(r -> r.temperature() == 0 || (r.topK() <= 0 && r.topP() >= 1.0));
        if (untruncated && (sampleOnDeviceAlways || logits.getDevice().isGpu())) {
            return picksOnDevice(logits, requests, active, rngs);
        }
        float[][][] d = distributions(logits, requests, active);
        TokenSampler.Pick[] out = new TokenSampler.Pick[active.length];
        for (int a = 0; a < active.length; a++) {
            Request req = requests.get(active[a]);
            out[a] = TokenSampler.pick(
                    d[0][a], d[1][a], req.temperature() == 0, req.topK(), req.topP(), rngs[active[a]]);
        }
        return out;
    }

    /**
     * {@link TokenSampler#pick}'s greedy and untruncated draws, on the logits' device: the first largest logit, or
     * the first token whose cumulative probability (at the row's temperature) reaches u times the total, u the row's
     * next {@code nextDouble()}. Reading two [rows, vocabulary] arrays to the host and scanning them in Java cost
     * more than the model's step on a GPU (at 151,936 tokens and 64 rows: 78 MB a step); this reads 3 numbers a
     * row. The cumulative sum is float32 here where the host sums in double, so a draw that falls within rounding of
     * a boundary between two tokens may pick the neighbour (never seen in the tests that compare both).
     */
    static TokenSampler.Pick[] picksOnDevice(
            NDArray logits, List<Request> requests, int[] active, SplittableRandom[] rngs) {
        int b = active.length;
        float[] inverseT = new float[b];
        float[] u = new float[b];
        for (int a = 0; a < b; a++) {
            Request req = requests.get(active[a]);
            inverseT[a] = req.temperature() == 0 ? 1f : (float) (1 / req.temperature());
            u[a] = req.temperature() == 0 ? 0f : (float) rngs[active[a]].nextDouble();
        }
        NDManager m = logits.getManager();
        NDArray cdf =
                logits.mul(m.create(inverseT, new Shape(b, 1))).softmax(-1).cumSum(1);
        NDArray target = cdf.get(new NDIndex(":, -1:")).mul(m.create(u, new Shape(b, 1)));
        long[] sampled =
                cdf.lt(target).toType(DataType.INT64, false).sum(new int[] {1}).toLongArray();
        long[] greedy = logits.argMax(1).toLongArray();
        long vocab = logits.getShape().get(1);
        long[] chosen = new long[b];
        for (int a = 0; a < b; a++) {
            chosen[a] = requests.get(active[a]).temperature() == 0 ? greedy[a] : Math.min(sampled[a], vocab - 1);
        }
        float[] lp = logits.logSoftmax(-1)
                .gather(m.create(chosen, new Shape(b, 1)), 1)
                .toFloatArray();
        TokenSampler.Pick[] out = new TokenSampler.Pick[b];
        for (int a = 0; a < b; a++) {
            out[a] = new TokenSampler.Pick((int) chosen[a], lp[a]);
        }
        return out;
    }

    /**
     * The next-token distributions of the active rows, computed on the device: [0] log-probabilities at
     * temperature 1 (the reported logprobs), [1] probabilities at each row's sampling temperature.
     */
    private static float[][][] distributions(NDArray logits, List<Request> requests, int[] active) {
        float[] inverseT = new float[active.length];
        for (int a = 0; a < active.length; a++) {
            double t = requests.get(active[a]).temperature();
            inverseT[a] = t == 0 ? 1f : (float) (1 / t);
        }
        NDArray scaled = logits.mul(logits.getManager().create(inverseT, new Shape(active.length, 1)));
        return new float[][][] {rowsOf(logits.logSoftmax(-1)), rowsOf(scaled.softmax(-1))};
    }

    private static float[][] rowsOf(NDArray logits2d) {
        int b = (int) logits2d.getShape().get(0);
        int v = (int) logits2d.getShape().get(1);
        float[] flat = logits2d.toFloatArray();
        float[][] out = new float[b][];
        for (int i = 0; i < b; i++) {
            out[i] = Arrays.copyOfRange(flat, i * v, (i + 1) * v);
        }
        return out;
    }
}

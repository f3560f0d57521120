package org.pettingllms.torch.bench;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.torch.GpuMemory;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.engine.LoraSettings;
import org.pettingllms.torch.engine.PolicyRegistry;
import org.pettingllms.torch.engine.TorchLearner;
import org.pettingllms.torch.engine.TrainSettings;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.sampling.Generator;

/**
 * Engine throughput, as numbers: the machine's float32 matmul peak, prefill and KV-cache decode tokens/s (and
 * whole generations: prefill plus decode), and
 * training tokens/s (forward + backward + AdamW) for a LoRA and a full update, each with its model FLOP
 * utilisation against the measured peak. Model FLOPs are counted as 2 * (matmul parameters) per token for a
 * forward pass, 4x for a LoRA update (no weight gradients) and 6x for a full update; attention score FLOPs are
 * left out, as usual.
 */
public final class ModelBench {
    private ModelBench() {}

    /** What to measure: all of {@code prefill, decode, train, tree}, or some. */
    public static final Set<String> PARTS = Set.of("prefill", "decode", "train", "tree");

    /**
     * Where and what: the device, the type the weights are held in, and the parts measured ({@link #PARTS}).
     */
    public record Options(Device device, DataType dataType, Set<String> parts, Shapes shapes, int samplerThreads) {
        public Options {
            parts = Set.copyOf(parts);
            if (!PARTS.containsAll(parts)) {
                throw new IllegalArgumentException("unknown parts " + parts + "; parts: prefill, decode, train, tree");
            }
            if (samplerThreads < 1) {
                throw new IllegalArgumentException("samplerThreads must be at least 1, got " + samplerThreads);
            }
        }

        /** Decoding on one PyTorch thread, as the embedded sampler runs it by default ({@code engine.samplerThreads}). */
        public Options(Device device, DataType dataType, Set<String> parts, Shapes shapes) {
            this(device, dataType, parts, shapes, 1);
        }

        /** The weights' type as the command line and the anchor script spell it: fp32 or bf16. */
        public String dtypeName() {
            return dataType == DataType.BFLOAT16 ? "bf16" : "fp32";
        }
    }

    /**
     * The amounts of work: prefill rows (of 128 tokens), decode batches, new tokens a generation, training rows of
     * {@code trainPrompt + trainCompletion} tokens. {@link #FULL} is the default (and a GPU's); {@link #SMALL} does
     * the same kinds of work cut for a 2-core CPU at a Qwen3 shape, where the full set takes about half an hour on each
     * side; {@link #RL} trains the rows an RL update really trains (16 x 1,024 tokens: 256 of prompt, 768 of
     * completion), where a step's fixed costs (the optimizer, launches) weigh less than at 16 x 96.
     * scripts/gpu/anchor.py has the same three ({@code --shapes}).
     */
    public record Shapes(
            int prefillRows, int[] decodeBatches, int newTokens, int trainRows, int trainPrompt, int trainCompletion) {
        public static final Shapes FULL = new Shapes(16, new int[] {1, 16, 64}, 64, 16, 32, 64);
        public static final Shapes SMALL = new Shapes(4, new int[] {1, 4, 16}, 16, 4, 32, 64);
        public static final Shapes RL = new Shapes(16, new int[] {1, 16, 64}, 64, 16, 256, 768);

        /** {@code full}, {@code small} or {@code rl}. */
        public static Shapes of(String name) {
            return switch (name) {
                case "full" -> FULL;
                case "small" -> SMALL;
                case "rl" -> RL;
                default ->
                    throw new IllegalArgumentException("unknown shapes '" + name + "'; expected full, small or rl");
            };
        }
    }

    public static Map<String, Object> run(ModelConfig cfg, Path modelDir, int seconds, Options options)
            throws Exception {
        Map<String, Object> out = new LinkedHashMap<>();
        Device device = options.device();
        try (GpuMemory memory = GpuMemory.sample(device)) {
            measure(cfg, modelDir, seconds, options, out);
            memory.peakGib().ifPresent(g -> out.put("peak_gpu_memory_used_gib", round(g)));
        }
        out.put("threads", Runtime.getRuntime().availableProcessors());
        out.put("engine", "PyTorch " + Torch.engine().getVersion());
        return out;
    }

    private static void measure(ModelConfig cfg, Path modelDir, int seconds, Options options, Map<String, Object> out)
            throws Exception {
        Device device = options.device();
        double peak = matmulPeakGflops(device, options.dataType(), seconds);
        out.put("device", device.toString());
        out.put("dtype", options.dtypeName());
        out.put("matmul_peak_gflops", round(peak));
        DecoderModel loaded = modelDir != null
                ? ModelFamilies.load(modelDir, device, options.dataType()).decoder()
                : DecoderModel.random(cfg, 1, device, options.dataType());
        try (PolicyRegistry reg = new PolicyRegistry(Map.of("bench", loaded), LoraSettings.DEFAULT, 1)) {
            DecoderModel model = reg.model("bench");
            ModelConfig c = model.config();
            long params = model.parameterCount();
            long matmulParams = params
                    - (long) c.vocabSize() * c.hiddenSize() // the embedding lookup is not a matmul
                    + (c.tieWordEmbeddings() ? (long) c.vocabSize() * c.hiddenSize() : 0);
            out.put("model", modelDir != null ? modelDir.toString() : "random " + c.modelType());
            out.put("parameters", params);
            out.put("layers", c.numLayers());
            out.put("hidden", c.hiddenSize());
            double fwdFlopsPerToken = 2.0 * matmulParams;

            Set<String> parts = options.parts();
            if (parts.contains("prefill")) {
                double prefill = prefillTokensPerSecond(model, options.shapes().prefillRows(), 128, seconds);
                out.put("prefill_tokens_per_s", round(prefill));
                out.put("prefill_mfu", round(prefill * fwdFlopsPerToken / (peak * 1e9)));
            }
            if (parts.contains("decode")) {
                out.put("decode_threads", options.samplerThreads());
                for (int batch : options.shapes().decodeBatches()) {
                    DecodeRates r = onSamplerThread(
                            options.samplerThreads(),
                            () -> decodeTokensPerSecond(
                                    model, batch, 16, options.shapes().newTokens(), seconds));
                    out.put("decode_b" + batch + "_tokens_per_s", round(r.decode()));
                    out.put("decode_b" + batch + "_mfu", round(r.decode() * fwdFlopsPerToken / (peak * 1e9)));
                    out.put("generate_b" + batch + "_tokens_per_s", round(r.generate()));
                }
            }
            if (parts.contains("train")) {
                Shapes sh = options.shapes();
                double lora = trainTokensPerSecond(reg, new PolicyRef("bench", "role"), sh, seconds);
                out.put("train_lora_tokens_per_s", round(lora));
                out.put("train_lora_mfu", round(lora * 2 * fwdFlopsPerToken / (peak * 1e9)));
                double full = trainTokensPerSecond(reg, PolicyRef.of("bench"), sh, seconds);
                out.put("train_full_tokens_per_s", round(full));
                out.put("train_full_mfu", round(full * 3 * fwdFlopsPerToken / (peak * 1e9)));
            }
            if (parts.contains("tree")) {
                for (int k : new int[] {4, 8}) {
                    out.put("tree_k" + k, treeGroups(reg, k));
                }
            }
        }
    }

    /**
     * GEMM throughput in the weights' type: 1024x1024 matrices on a CPU, 8192x8192 on a GPU (large enough to reach
     * its tensor cores' peak). GPU work is queued asynchronously, so the clock stops only after a value of the last
     * product has been read back (which waits for every queued product).
     */
    static double matmulPeakGflops(Device device, DataType type, int seconds) {
        try (NDManager m = Torch.engine().newBaseManager(device)) {
            int n = device.isGpu() ? 8192 : 1024;
            NDArray a = m.randomNormal(new Shape(n, n)).toType(type, false);
            NDArray b = m.randomNormal(new Shape(n, n)).toType(type, false);
            for (int i = 0; i < 3; i++) {
                a.matMul(b).close();
            }
            sync(a.matMul(b));
            long start = System.nanoTime();
            int iters = 0;
            while (System.nanoTime() - start < seconds * 1e9 / 2 || iters < 5) {
                for (int i = 0; i < 9; i++) {
                    a.matMul(b).close();
                }
                sync(a.matMul(b));
                iters += 10;
            }
            return 2.0 * n * n * n * iters / ((System.nanoTime() - start) / 1e9) / 1e9;
        }
    }

    /** Waits for the queued work that produced {@code a} by reading one of its values, then frees it. */
    private static void sync(NDArray a) {
        try (a;
                NDArray one = a.get(0, 0)) {
            one.toType(DataType.FLOAT32, false).getFloat();
        }
    }

    static double prefillTokensPerSecond(DecoderModel model, int batch, int len, int seconds) {
        List<int[]> rows = randomRows(model.config().vocabSize(), batch, len, 1);
        long tokens = 0;
        long start = 0;
        for (int i = 0; ; i++) {
            if (i == 2) {
                start = System.nanoTime();
                tokens = 0;
            }
            try (NDManager scope = model.manager().newSubManager()) {
                Inputs.Batch in = Inputs.leftPadded(scope, rows, 0);
                // every position's logits are computed; one value a row is read back, which waits for them (reading
                // all of them would time a 1.2 GB host copy at Qwen3's vocabulary instead of the model)
                model.forward(in.ids(), in.positions(), in.bias(), null, null)
                        .get(new NDIndex(":, -1, 0"))
                        .toFloatArray();
            }
            tokens += (long) batch * len;
            if (i >= 3 && System.nanoTime() - start > seconds * 1e9 / 2) {
                return tokens / ((System.nanoTime() - start) / 1e9);
            }
        }
    }

    /**
     * Decode and end-to-end generation tokens/s at a batch size: {@code generate} runs the prefill of 16-token
     * prompts and 64 new tokens per row; {@code decode} counts the KV-cache steps alone, as the difference between
     * that run and one that stops after the first new token (prefill plus one token), so that the prefill, measured
     * on its own above, is not counted twice. Each is the fastest of {@value #DECODE_RUNS} runs after warm-up runs for
     * a quarter of {@code seconds} (at least two): a sampler generates thousands of times in a training run, so the
     * rate that matters is the one after the JVM has compiled the decode loop, which one warm-up run does not reach.
     * scripts/gpu/anchor.py measures eager alike.
     */
    static DecodeRates decodeTokensPerSecond(DecoderModel model, int batch, int promptLen, int newTokens, int seconds) {
        List<int[]> prompts = randomRows(model.config().vocabSize(), batch, promptLen, 2);
        long warmStart = System.nanoTime();
        for (int i = 0; i < 2 || System.nanoTime() - warmStart < seconds * 1e9 / 4; i++) {
            Generator.generate(model, requests(prompts, newTokens));
        }
        double prefillOnly = Double.MAX_VALUE;
        double full = Double.MAX_VALUE;
        for (int rep = 0; rep < DECODE_RUNS; rep++) { // the fastest runs: less noise from other processes
            prefillOnly = Math.min(prefillOnly, seconds(() -> Generator.generate(model, requests(prompts, 1))));
            full = Math.min(full, seconds(() -> Generator.generate(model, requests(prompts, newTokens))));
        }
        return new DecodeRates(
                (double) batch * (newTokens - 1) / (full - prefillOnly), (double) batch * newTokens / full);
    }

    static final int DECODE_RUNS = 3;

    /**
     * Runs {@code work} on a fresh thread with {@code threads} PyTorch intra-op threads, as the embedded sampler's
     * worker runs generation ({@code engine.samplerThreads}, 1 by default): at the small per-token work of decoding,
     * a second OpenMP thread costs more in hand-offs than it saves (2 cores, 2m preset, batch 1: 403-627 against
     * 478-648 tokens/s on a quiet machine, 70 against 643 beside one busy core; docs/BENCHMARKS.md).
     */
    static <T> T onSamplerThread(int threads, java.util.concurrent.Callable<T> work) throws Exception {
        ExecutorService sampler = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().name("bench-sampler").daemon().unstarted(r));
        try {
            return sampler.submit(() -> {
                        Torch.setThreadsOfThisThread(threads);
                        return work.call();
                    })
                    .get();
        } finally {
            sampler.shutdownNow();
        }
    }

    /** Tokens/s of the decode steps alone and of whole generations (prefill included). */
    record DecodeRates(double decode, double generate) {}

    private static List<Generator.Request> requests(List<int[]> prompts, int newTokens) {
        List<Generator.Request> reqs = new ArrayList<>();
        for (int[] p : prompts) {
            // no stop tokens: every row runs the full length
            reqs.add(new Generator.Request(p, null, 1.0, 0, 1.0, newTokens, new int[0], null, p[0]));
        }
        return reqs;
    }

    private static double seconds(Runnable r) {
        long start = System.nanoTime();
        r.run();
        return (System.nanoTime() - start) / 1e9;
    }

    static double trainTokensPerSecond(PolicyRegistry reg, PolicyRef policy, Shapes shapes, int seconds) {
        ModelConfig c = reg.model(policy.model()).config();
        List<TrainExample> batch = new ArrayList<>();
        SplittableRandom rng = new SplittableRandom(3);
        int p = shapes.trainPrompt();
        int len = p + shapes.trainCompletion();
        for (int[] row : randomRows(c.vocabSize(), shapes.trainRows(), len, 3)) {
            int[] prompt = Arrays.copyOf(row, p);
            int[] completion = Arrays.copyOfRange(row, p, len);
            float[] old = new float[completion.length];
            Arrays.fill(old, (float) -Math.log(c.vocabSize()));
            batch.add(new TrainExample(IntSeq.of(prompt), IntSeq.of(completion), FloatSeq.of(old), rng.nextGaussian()));
        }
        TrainSettings settings = new TrainSettings(16, false);
        OptimParams adamW = OptimParams.adamW(1e-5, 0.01, 1.0);
        try (TorchLearner learner = new TorchLearner(reg, settings)) {
            long tokens = 0;
            long start = 0;
            for (int i = 0; ; i++) {
                if (i == 1) {
                    start = System.nanoTime();
                    tokens = 0;
                }
                tokens += learner.forwardBackward(policy, batch, LossConfig.DEFAULT)
                                .tokens()
                        + (long) p * batch.size();
                learner.optimStep(policy, adamW);
                if (i >= 2 && System.nanoTime() - start > seconds * 1e9 / 2) {
                    return tokens / ((System.nanoTime() - start) / 1e9);
                }
            }
        }
    }

    static final int TREE_GROUPS = 8;
    static final int TREE_PROMPT = 150;
    static final int TREE_ANSWER = 24;
    static final int TREE_ROUNDS = 7;
    static final int TREE_WARMUP = 4;

    /**
     * Tree-group throughput: {@value #TREE_GROUPS} prompts of {@value #TREE_PROMPT} tokens with K candidates of
     * {@value #TREE_ANSWER} tokens each, sampled (every row runs the full length) and trained (one LoRA
     * forward-backward and optimizer step over the K x groups samples, micro-batches of 16 rows), with the prompt
     * shared by its K rows and without. Sampling is measured as the embedded sampler runs it, on a thread of its own
     * with one PyTorch intra-op thread (the {@code engine.samplerThreads} default), and on this thread with every
     * core ({@code sample_all_threads_*}). Effective tokens/s count every row's prompt and answer tokens, so shared
     * and unshared count the same work. Shared and unshared alternate over {@value #TREE_ROUNDS} measured rounds
     * after {@value #TREE_WARMUP} warm-up rounds (the shared halves run code that the benchmarks above did not, and
     * after one warm-up round they still got faster over the first five or six rounds): the tokens/s are each one's
     * fastest round, the speedups the median over rounds of the round's unshared/shared time ratio, so that a slow
     * spell of the machine, which lasts seconds and slows both halves of a round, does not decide the ratio.
     */
    static Map<String, Object> treeGroups(PolicyRegistry reg, int k) throws Exception {
        DecoderModel model = reg.model("bench");
        int vocab = model.config().vocabSize();
        List<int[]> prompts = randomRows(vocab, TREE_GROUPS, TREE_PROMPT, 11);
        List<Generator.Request> reqs = new ArrayList<>();
        List<TrainExample> examples = new ArrayList<>();
        SplittableRandom rng = new SplittableRandom(5);
        for (int[] p : prompts) {
            for (int i = 0; i < k; i++) {
                reqs.add(new Generator.Request(p, null, 1.0, 0, 1.0, TREE_ANSWER, new int[0], null, rng.nextLong()));
                int[] answer = randomRows(vocab, 1, TREE_ANSWER, rng.nextLong()).get(0);
                float[] old = new float[TREE_ANSWER];
                Arrays.fill(old, (float) -Math.log(vocab));
                examples.add(new TrainExample(IntSeq.of(p), IntSeq.of(answer), FloatSeq.of(old), rng.nextGaussian()));
            }
        }
        double tokens = (double) reqs.size() * (TREE_PROMPT + TREE_ANSWER);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("rows", reqs.size());
        double[][] sample = new double[2][TREE_ROUNDS];
        double[][] sampleAll = new double[2][TREE_ROUNDS];
        double[][] train = new double[2][TREE_ROUNDS];
        OptimParams adamW = OptimParams.adamW(1e-5, 0.01, 1.0);
        PolicyRef[] policies = {new PolicyRef("bench", "tree" + k), new PolicyRef("bench", "tree" + k + "-shared")};
        // one long-lived sampler thread, as the embedded sampler's worker: a fresh thread's first generation pays
        // for its thread-local set-up, which would fall on whichever half ran first
        ExecutorService sampler = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().name("bench-sampler").daemon().unstarted(r));
        try (TorchLearner unshared = new TorchLearner(reg, new TrainSettings(16, false, false));
                TorchLearner shared = new TorchLearner(reg, new TrainSettings(16, false, true))) {
            sampler.submit(() -> Torch.setThreadsOfThisThread(1)).get();
            TorchLearner[] learners = {unshared, shared};
            // unshared and shared alternate, so that a slow spell of the machine does not favour one of them
            for (int rep = 0; rep < TREE_WARMUP + TREE_ROUNDS; rep++) {
                int round = rep - TREE_WARMUP; // negative: a warm-up round
                sampler.submit(() -> {
                            for (int s = 0; s < 2; s++) {
                                boolean share = s == 1;
                                double t = seconds(() -> Generator.generate(model, reqs, share));
                                if (round >= 0) {
                                    sample[s][round] = t;
                                }
                            }
                        })
                        .get();
                for (int s = 0; s < 2; s++) {
                    boolean share = s == 1;
                    TorchLearner learner = learners[s];
                    PolicyRef policy = policies[s];
                    double gen = seconds(() -> Generator.generate(model, reqs, share));
                    double step = seconds(() -> {
                        learner.forwardBackward(policy, examples, LossConfig.DEFAULT);
                        learner.optimStep(policy, adamW);
                    });
                    if (round >= 0) {
                        sampleAll[s][round] = gen;
                        train[s][round] = step;
                    }
                }
            }
        } finally {
            sampler.shutdownNow();
        }
        out.put("sample_unshared_tokens_per_s", round(tokens / min(sample[0])));
        out.put("sample_shared_tokens_per_s", round(tokens / min(sample[1])));
        out.put("sample_speedup", round(medianRatio(sample[0], sample[1])));
        out.put("sample_all_threads_unshared_tokens_per_s", round(tokens / min(sampleAll[0])));
        out.put("sample_all_threads_shared_tokens_per_s", round(tokens / min(sampleAll[1])));
        out.put("sample_all_threads_speedup", round(medianRatio(sampleAll[0], sampleAll[1])));
        out.put("train_unshared_tokens_per_s", round(tokens / min(train[0])));
        out.put("train_shared_tokens_per_s", round(tokens / min(train[1])));
        out.put("train_speedup", round(medianRatio(train[0], train[1])));
        return out;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElseThrow();
    }

    /** The median over rounds of {@code slow[i] / fast[i]}. */
    static double medianRatio(double[] slow, double[] fast) {
        double[] r = new double[slow.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = slow[i] / fast[i];
        }
        Arrays.sort(r);
        int m = r.length / 2;
        return r.length % 2 == 1 ? r[m] : (r[m - 1] + r[m]) / 2;
    }

    private static List<int[]> randomRows(int vocab, int batch, int len, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<int[]> rows = new ArrayList<>();
        for (int b = 0; b < batch; b++) {
            int[] r = new int[len];
            for (int i = 0; i < len; i++) {
                r[i] = 3 + rng.nextInt(vocab - 3);
            }
            rows.add(r);
        }
        return rows;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}

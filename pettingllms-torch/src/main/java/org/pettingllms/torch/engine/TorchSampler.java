package org.pettingllms.torch.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.Predicate;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.NativeMemory;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.sampling.Generator;

/**
 * The embedded sampler. Callers (concurrent episodes) call {@link #sample} as if alone; a single worker thread
 * collects the requests that arrive together and runs them as one batch per model, rows with different LoRA
 * adapters included (dynamic batching). Each batch runs under the registry's read lock with the current weights,
 * and every completion records the weight version that produced it.
 */
public final class TorchSampler implements Sampler, AutoCloseable {
    private final PolicyRegistry registry;
    private final Function<String, TextCodec> codecs;
    private final int maxBatchRows;
    private final long lingerMicros;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private volatile boolean closed;

    private record Pending(
            PolicyRef policy,
            int[] prompt,
            List<Generator.Request> rows,
            TextCodec codec,
            SamplingParams params,
            CompletableFuture<List<Completion>> result,
            int[] imageTokens) {}

    /**
     * @param codecs       the text codec of a model name
     * @param maxBatchRows rows per generation batch
     * @param lingerMicros how long the worker waits for more requests after the first arrives
     */
    public TorchSampler(
            PolicyRegistry registry, Function<String, TextCodec> codecs, int maxBatchRows, long lingerMicros) {
        this(registry, codecs, maxBatchRows, lingerMicros, 1);
    }

    /**
     * @param threads PyTorch intra-op threads of the worker thread. One by default: on a thread other than the one
     *                that started the engine, a multi-threaded small matmul costs several times a single-threaded
     *                one (docs/BENCHMARKS.md has the measurement), and decoding is all small matmuls; a large model on
     *                many cores wants more
     */
    public TorchSampler(
            PolicyRegistry registry,
            Function<String, TextCodec> codecs,
            int maxBatchRows,
            long lingerMicros,
            int threads) {
        this.registry = registry;
        this.codecs = codecs;
        this.maxBatchRows = maxBatchRows;
        this.lingerMicros = lingerMicros;
        // the constructor returns once the worker has its thread count, so that no thread of the caller runs its
        // first parallel op while the process-wide count is briefly the worker's
        CompletableFuture<Void> ready = new CompletableFuture<>();
        this.worker = Thread.ofPlatform().daemon().name("pettingllms-sampler").start(() -> {
            try {
                Torch.setThreadsOfThisThread(threads);
            } finally {
                ready.complete(null);
            }
            loop();
        });
        ready.join();
    }

    @Override
    public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
        if (closed) {
            throw new IllegalStateException("sampler is closed");
        }
        List<Image> images = prompt.images();
        if (images.isEmpty()) {
            return sampleTokens(policy, codecs.apply(policy.model()).encodePrompt(prompt), n, params);
        }
        DecoderModel model = registry.model(policy.model());
        InputEncoder encoder = model.inputEncoder();
        if (encoder == null) {
            throw new UnsupportedOperationException("model '" + policy.model() + "' (model_type "
                    + model.config().modelType() + ") takes no images; this prompt shows " + images.size());
        }
        int[] ids = encoder.expand(codecs.apply(policy.model()).encodePrompt(prompt), images, "prompt");
        return sampleTokens(policy, ids, images, n, params);
    }

    /** As {@link #sample}, for a prompt given as token ids (what inference servers receive). */
    public List<Completion> sampleTokens(PolicyRef policy, int[] ids, int n, SamplingParams params) {
        return sampleTokens(policy, ids, List.of(), n, params);
    }

    /**
     * As {@link #sampleTokens(PolicyRef, int[], int, SamplingParams)}, for ids that hold {@code images}' expanded
     * placeholders (a vision-language model's prompt).
     */
    public List<Completion> sampleTokens(
            PolicyRef policy, int[] ids, List<Image> images, int n, SamplingParams params) {
        if (closed) {
            throw new IllegalStateException("sampler is closed");
        }
        TextCodec codec = codecs.apply(policy.model());
        DecoderModel model = registry.model(policy.model());
        InputEncoder encoder = model.inputEncoder();
        if (encoder != null) {
            encoder.check(ids, images, "prompt"); // here, so that a bad request fails alone, not its whole batch
        } else if (!images.isEmpty()) {
            throw new UnsupportedOperationException("model '" + policy.model() + "' (model_type "
                    + model.config().modelType() + ") takes no images; this prompt shows " + images.size());
        }
        List<Generator.Request> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(new Generator.Request(
                    ids,
                    registry.adapter(policy),
                    params.temperature(),
                    params.topK(),
                    params.topP(),
                    params.maxTokens(),
                    codec.stopTokenIds(),
                    stopCheck(codec, params.stop()),
                    Seeds.derive(params.seed(), i),
                    images));
        }
        CompletableFuture<List<Completion>> f = new CompletableFuture<>();
        queue.add(new Pending(
                policy, ids, rows, codec, params, f, encoder == null ? new int[0] : encoder.imageTokenIds()));
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sampling", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        }
    }

    private static Predicate<int[]> stopCheck(TextCodec codec, List<String> stops) {
        if (stops.isEmpty()) {
            return null;
        }
        return tokens -> {
            String text = codec.decode(tokens);
            return stops.stream().anyMatch(text::contains);
        };
    }

    private void loop() {
        boolean paused = true;
        while (!closed) {
            List<Pending> batch = new ArrayList<>();
            try {
                Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    paused = true;
                    continue;
                }
                if (paused) {
                    // work resumes after a pause (a training update ran meanwhile): what it freed goes back first,
                    // before this batch's caches are allocated beside it (NativeMemory)
                    NativeMemory.trim();
                    paused = false;
                }
                batch.add(first);
                int rows = first.rows().size();
                long deadline = System.nanoTime() + lingerMicros * 1000;
                while (rows < maxBatchRows) {
                    Pending next = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (next == null) {
                        break;
                    }
                    batch.add(next);
                    rows += next.rows().size();
                }
                run(batch);
                if (queue.isEmpty()) {
                    NativeMemory.trim(); // idle: the batches' freed caches go back to the system (NativeMemory)
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                batch.forEach(p -> p.result().completeExceptionally(e));
            }
        }
    }

    private void run(List<Pending> batch) {
        Map<String, List<Pending>> byModel = new LinkedHashMap<>();
        batch.forEach(p -> byModel.computeIfAbsent(p.policy().model(), k -> new ArrayList<>())
                .add(p));
        Lock lock = registry.lock().readLock();
        lock.lock();
        try {
            for (Map.Entry<String, List<Pending>> e : byModel.entrySet()) {
                List<Generator.Request> rows = new ArrayList<>();
                e.getValue().forEach(p -> rows.addAll(p.rows()));
                List<Generator.Result> results = Generator.generate(registry.model(e.getKey()), rows);
                int at = 0;
                for (Pending p : e.getValue()) {
                    long version = registry.version(p.policy());
                    List<Completion> out = new ArrayList<>();
                    for (int i = 0; i < p.rows().size(); i++) {
                        out.add(completion(p, results.get(at++), version));
                    }
                    p.result().complete(out);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private static Completion completion(Pending p, Generator.Result r, long version) {
        int[] tokens = r.tokens();
        int[] textTokens = r.finish() == FinishReason.EOS ? Arrays.copyOf(tokens, tokens.length - 1) : tokens;
        if (p.imageTokens().length > 0) {
            // a sampled image marker is no text: left in, a later prompt showing this answer would hold a placeholder
            textTokens = Arrays.stream(textTokens)
                    .filter(t -> Arrays.stream(p.imageTokens()).noneMatch(i -> i == t))
                    .toArray();
        }
        String text = p.codec().decode(textTokens);
        if (r.finish() == FinishReason.STOP_STRING) {
            for (String s : p.params().stop()) {
                int at = text.indexOf(s);
                if (at >= 0) {
                    text = text.substring(0, at);
                }
            }
        }
        return new Completion(
                IntSeq.of(p.prompt()), IntSeq.of(tokens), FloatSeq.of(r.logprobs()), text, r.finish(), version);
    }

    @Override
    public void close() {
        closed = true;
        worker.interrupt();
        Pending p;
        while ((p = queue.poll()) != null) {
            p.result().completeExceptionally(new IllegalStateException("sampler closed"));
        }
    }
}

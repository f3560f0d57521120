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
import org.pettingllms.core.util.Failures;
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
 * adapters included (dynamic batching). {@link #sampleTogether} runs a given set of requests as its own batches
 * instead, so that their make-up does not depend on timing (the rollouts' lockstep). A failed batch runs again
 * request by request, so only a request that fails alone fails. Each batch runs under the registry's read lock with the current weights,
 * and every completion records the weight version that produced it.
 */
public final class TorchSampler implements Sampler, AutoCloseable {
    private final PolicyRegistry registry;
    private final Function<String, TextCodec> codecs;
    private final int maxBatchRows;
    private final long lingerMicros;
    private final LinkedBlockingQueue<Unit> queue = new LinkedBlockingQueue<>();
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
     * What callers queue: one request, which the worker may batch with others that arrive meanwhile, or requests to
     * run {@code together} (exactly these, in this order: {@link #sampleTogether}).
     */
    private record Unit(List<Pending> pending, boolean together) {}

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
        return sampleTokens(policy, ids(policy, prompt), prompt.images(), n, params);
    }

    /**
     * Queues the requests as one unit: the worker runs exactly these rows as its batches (in this order, cut where
     * {@code maxBatchRows} is reached, never inside a request unless it alone is larger), without waiting for or
     * adding other requests. A request that cannot be encoded fails alone, before the unit is queued.
     */
    @Override
    public List<CompletableFuture<List<Completion>>> sampleTogether(List<Request> requests) {
        if (closed) {
            throw new IllegalStateException("sampler is closed");
        }
        List<CompletableFuture<List<Completion>>> out = new ArrayList<>(requests.size());
        List<Pending> unit = new ArrayList<>();
        for (Request r : requests) {
            try {
                Pending p = pending(
                        r.policy(), ids(r.policy(), r.prompt()), r.prompt().images(), r.n(), r.params());
                unit.add(p);
                out.add(p.result());
            } catch (RuntimeException e) {
                out.add(CompletableFuture.failedFuture(e));
            }
        }
        if (!unit.isEmpty()) {
            queue.add(new Unit(unit, true));
        }
        return out;
    }

    /** A prompt's ids, each image's placeholder expanded; a text model given images refuses in one line. */
    private int[] ids(PolicyRef policy, Prompt prompt) {
        int[] ids = codecs.apply(policy.model()).encodePrompt(prompt);
        if (prompt.images().isEmpty()) {
            return ids;
        }
        DecoderModel model = registry.model(policy.model());
        if (model.inputEncoder() == null) {
            throw new UnsupportedOperationException("model '" + policy.model() + "' (model_type "
                    + model.config().modelType() + ") takes no images; this prompt shows "
                    + prompt.images().size());
        }
        return model.inputEncoder().expand(ids, prompt.images(), "prompt");
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
        Pending p = pending(policy, ids, images, n, params);
        queue.add(new Unit(List.of(p), false));
        try {
            return p.result().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sampling", e);
        } catch (ExecutionException e) {
            throw Failures.rethrow(e, IllegalStateException::new);
        }
    }

    /** A checked request with its rows, ready to queue. */
    private Pending pending(PolicyRef policy, int[] ids, List<Image> images, int n, SamplingParams params) {
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
        return new Pending(
                policy,
                ids,
                rows,
                codec,
                params,
                new CompletableFuture<>(),
                encoder == null ? new int[0] : encoder.imageTokenIds());
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
        Unit carried = null; // a unit to run together that ended the previous batch's linger
        while (!closed) {
            List<Pending> batch = new ArrayList<>();
            try {
                Unit first = carried != null ? carried : queue.poll(100, TimeUnit.MILLISECONDS);
                carried = null;
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
                batch.addAll(first.pending());
                if (!first.together()) {
                    int rows = first.pending().get(0).rows().size();
                    long deadline = System.nanoTime() + lingerMicros * 1000;
                    while (rows < maxBatchRows) {
                        Unit next = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                        if (next == null) {
                            break;
                        }
                        if (next.together()) {
                            carried = next;
                            break;
                        }
                        batch.addAll(next.pending());
                        rows += next.pending().get(0).rows().size();
                    }
                }
                run(batch);
                if (queue.isEmpty() && carried == null) {
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

    /** Each model's requests in their order, in batches of up to {@code maxBatchRows} rows. */
    private void run(List<Pending> batch) {
        Map<String, List<Pending>> byModel = new LinkedHashMap<>();
        batch.forEach(p -> byModel.computeIfAbsent(p.policy().model(), k -> new ArrayList<>())
                .add(p));
        Lock lock = registry.lock().readLock();
        lock.lock();
        try {
            for (Map.Entry<String, List<Pending>> e : byModel.entrySet()) {
                List<Pending> chunk = new ArrayList<>();
                int rows = 0;
                for (Pending p : e.getValue()) {
                    if (!chunk.isEmpty() && rows + p.rows().size() > maxBatchRows) {
                        generate(e.getKey(), chunk);
                        chunk = new ArrayList<>();
                        rows = 0;
                    }
                    chunk.add(p);
                    rows += p.rows().size();
                }
                generate(e.getKey(), chunk);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * One batch. If it fails (a request the checks let through, memory), each request runs again alone, so that only
     * the request that fails alone fails.
     */
    private void generate(String model, List<Pending> chunk) {
        List<Generator.Request> rows = new ArrayList<>();
        chunk.forEach(p -> rows.addAll(p.rows()));
        List<Generator.Result> results;
        try {
            results = Generator.generate(registry.model(model), rows);
        } catch (RuntimeException e) {
            if (chunk.size() == 1) {
                chunk.get(0).result().completeExceptionally(e);
            } else {
                chunk.forEach(p -> generate(model, List.of(p)));
            }
            return;
        }
        int at = 0;
        for (Pending p : chunk) {
            long version = registry.version(p.policy());
            List<Completion> out = new ArrayList<>();
            for (int i = 0; i < p.rows().size(); i++) {
                out.add(completion(p, results.get(at++), version));
            }
            p.result().complete(out);
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
        Unit u;
        while ((u = queue.poll()) != null) {
            u.pending().forEach(p -> p.result().completeExceptionally(new IllegalStateException("sampler closed")));
        }
    }
}

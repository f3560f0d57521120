package org.pettingllms.torch.engine;

import ai.djl.ndarray.NDArray;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.core.util.Failures;
import org.pettingllms.torch.NativeMemory;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * The embedded learner: PPO-clip updates of the policies in a {@link PolicyRegistry}, full fine-tuning for a
 * model policy and LoRA-only for an adapter policy (an update touches only that adapter). Weight updates take the
 * registry's write lock, so the sampler never sees half-updated weights.
 */
public final class TorchLearner implements Learner, AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final PolicyRegistry registry;
    private final TrainSettings settings;
    private final Map<PolicyRef, PolicyTrainer> trainers = new LinkedHashMap<>();
    /** Set when weights are published (a new step's rollouts begin); the update that follows trims once first. */
    private final AtomicBoolean trimBeforeUpdate = new AtomicBoolean();
    /** The thread every call runs on, with {@link TrainSettings#threads()} PyTorch threads; null: the caller's. */
    private final ExecutorService thread;

    /** The models and adapters this learner updates. */
    public PolicyRegistry registry() {
        return registry;
    }

    private final AtomicBoolean closed = new AtomicBoolean();

    public TorchLearner(PolicyRegistry registry, TrainSettings settings) {
        this.registry = registry;
        this.settings = settings;
        this.thread = settings.threads() == 0
                ? null
                : Executors.newSingleThreadExecutor(
                        Thread.ofPlatform().daemon().name("pettingllms-learner").factory());
        if (thread != null) {
            run(() -> {
                Torch.setThreadsOfThisThread(settings.threads());
                return null;
            });
        }
    }

    /**
     * {@code body} on the learner's own thread where it has one ({@link TrainSettings#threads()}), else here. PyTorch's
     * two-thread kernels sum partial results in an order that depends on timing, so a learner on its caller's two
     * threads gives gradients whose last bits differ from run to run (two runs of the main command part in the first
     * step's gradient norms); on one thread two runs agree bit for bit.
     */
    private <T> T call(IoBody<T> body) throws IOException {
        if (thread == null) {
            return body.run();
        }
        try {
            return thread.submit(body::run).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the learner ran", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw Failures.rethrow(e, IllegalStateException::new);
        }
    }

    /** {@link #call} for a body that does no I/O. */
    private <T> T run(IoBody<T> body) {
        try {
            return call(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface IoBody<T> {
        T run() throws IOException;
    }

    private synchronized PolicyTrainer trainer(PolicyRef ref) {
        return trainers.computeIfAbsent(ref, r -> new PolicyTrainer(r, registry, settings));
    }

    @Override
    public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
        if (trimBeforeUpdate.getAndSet(false)) {
            NativeMemory.trim(); // the rollouts' freed memory goes back before the update's activations arrive
        }
        return run(() -> trainer(policy).forwardBackward(batch, loss));
    }

    @Override
    public LossStats forwardBackwardSupervised(PolicyRef policy, List<TrainExample> batch) {
        return run(() -> trainer(policy).forwardBackwardSupervised(batch));
    }

    @Override
    public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
        return run(() -> logprobsHere(policy, batch));
    }

    private List<FloatSeq> logprobsHere(PolicyRef policy, List<TrainExample> batch) {
        PolicyTrainer t = trainer(policy);
        Lock r = registry.lock().readLock();
        r.lock();
        try {
            return t.logprobs(batch);
        } finally {
            r.unlock();
        }
    }

    /**
     * The {@code n} most likely tokens at each completion position of each example under {@code policy}'s current
     * weights (the raw distribution: {@code serve}'s top logprobs), best first.
     */
    public List<SequenceBatch.Top> topLogprobs(PolicyRef policy, List<TrainExample> batch, int n) {
        return run(() -> {
            PolicyTrainer t = trainer(policy);
            Lock r = registry.lock().readLock();
            r.lock();
            try {
                return t.topLogprobs(batch, n);
            } finally {
                r.unlock();
            }
        });
    }

    @Override
    public OptimStats optimStep(PolicyRef policy, OptimParams params) {
        return run(() -> optimStepHere(policy, params));
    }

    private OptimStats optimStepHere(PolicyRef policy, OptimParams params) {
        PolicyTrainer t = trainer(policy);
        Lock w = registry.lock().writeLock();
        w.lock();
        try {
            OptimStats o = t.optimStep(params);
            if (!o.skipped()) {
                registry.bump(policy); // the weights changed: the sampler stamps the new version from now on
            }
            return o;
        } finally {
            w.unlock();
        }
    }

    /**
     * The embedded sampler reads the registry's weights directly: publishing is reading their version. A step
     * publishes before its rollouts, after the last step's update and validation: their freed native memory goes
     * back to the system here, once between phases (see {@link NativeMemory}), so it does not pile up from step to
     * step.
     */
    @Override
    public long publish(PolicyRef policy) {
        NativeMemory.trim();
        trimBeforeUpdate.set(true);
        return registry.version(policy);
    }

    /**
     * Writes the policy's trainable weights (PEFT adapter or full HF model), its optimizer state and
     * {@code trainer_state.json} into {@code dir}. The directory is replaced atomically: written beside, then
     * renamed, so a crash leaves either the old or the new checkpoint.
     */
    @Override
    public void save(PolicyRef policy, Path dir) throws IOException {
        call(() -> {
            PolicyTrainer t = trainer(policy);
            AtomicFiles.replaceFolder(dir, tmp -> write(policy, t, tmp));
            return null;
        });
    }

    private void write(PolicyRef policy, PolicyTrainer t, Path tmp) throws IOException {
        Lock r = registry.lock().readLock();
        r.lock();
        try {
            if (t.adapter() != null) {
                t.adapter().save(tmp, policy.model());
            } else {
                t.model().save(tmp);
            }
            Map<String, Tensor> opt = new LinkedHashMap<>();
            t.optimizer()
                    .state()
                    .forEach((k, a) -> opt.put(k, new Tensor(a.getShape().getShape(), a.toFloatArray())));
            SafeTensors.write(tmp.resolve("optimizer.safetensors"), opt);
            ObjectNode state = JSON.createObjectNode()
                    .put("optimizer_steps", t.optimizerSteps())
                    .put("weight_version", registry.version(policy))
                    .put("policy", policy.toString());
            Files.writeString(tmp.resolve("trainer_state.json"), state.toPrettyString());
        } finally {
            r.unlock();
        }
    }

    /** Restores what {@link #save} wrote: weights in place, optimizer moments, step and weight version. */
    @Override
    public void load(PolicyRef policy, Path dir) throws IOException {
        call(() -> {
            loadHere(policy, dir);
            return null;
        });
    }

    private void loadHere(PolicyRef policy, Path dir) throws IOException {
        PolicyTrainer t = trainer(policy);
        Path weights = dir.resolve(t.adapter() != null ? "adapter_model.safetensors" : "model.safetensors");
        Map<String, Tensor> w = SafeTensors.read(weights);
        Map<String, float[]> opt = new LinkedHashMap<>();
        SafeTensors.read(dir.resolve("optimizer.safetensors")).forEach((k, v) -> opt.put(k, v.data()));
        var state = JSON.readTree(dir.resolve("trainer_state.json").toFile());
        Lock lock = registry.lock().writeLock();
        lock.lock();
        try (Torch.NoGradients noGrad = Torch.noGradients()) { // in-place writes into leaves that require gradients
            if (t.adapter() == null) {
                t.model().setWeights(w);
            }
            // the rest of what the policy trains: an adapter's A and B, or a vision tower that trains
            for (Map.Entry<String, NDArray> e : t.trainable().entrySet()) {
                if (t.adapter() == null && t.model().parameters().containsKey(e.getKey())) {
                    continue;
                }
                Tensor src = w.get(e.getKey());
                if (src == null || src.numel() != e.getValue().getShape().size()) {
                    throw new IOException(weights + ": tensor '" + e.getKey() + "' is missing or has the wrong size");
                }
                DecoderModel.copyInto(e.getValue(), src.data());
            }
            t.optimizer().restore(opt, state.path("optimizer_steps").asLong());
            registry.setVersion(policy, state.path("weight_version").asLong());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets a policy's training state (gradients, optimizer moments, a KL reference): a training client that is
     * unloaded gives its memory back. The policy's weights stay where they are (the registry's).
     */
    public void release(PolicyRef policy) {
        run(() -> {
            PolicyTrainer t;
            synchronized (this) {
                t = trainers.remove(policy);
            }
            if (t != null) {
                t.close();
            }
            return null;
        });
    }

    /**
     * Frees every trainer, on the learner's thread, once. Not synchronized while it waits for that thread: a task
     * queued before it there (a {@link #release} from a session that ended) takes this object's lock, and a close
     * holding it would wait for that task forever.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        run(
                () -> { // the trainers' tensors are freed on the thread that made them
                    List<PolicyTrainer> all;
                    synchronized (this) {
                        all = new ArrayList<>(trainers.values());
                        trainers.clear();
                    }
                    all.forEach(PolicyTrainer::close);
                    return null;
                });
        if (thread != null) {
            thread.shutdown();
        }
    }
}

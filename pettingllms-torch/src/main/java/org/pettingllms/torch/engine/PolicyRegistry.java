package org.pettingllms.torch.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.util.Seeds;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;

/**
 * The weights shared by the embedded sampler and learner: models by name, adapters by policy, and the published
 * weight version of each policy. Sampling holds the read lock for a whole batch; weight updates hold the write
 * lock, so a batch never mixes weights.
 */
public final class PolicyRegistry implements AutoCloseable {
    private final Map<String, DecoderModel> models;
    private final Map<PolicyRef, LoraAdapter> adapters = new LinkedHashMap<>();
    private final Map<PolicyRef, Long> versions = new LinkedHashMap<>();
    private final LoraSettings lora;
    private final long seed;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();

    public PolicyRegistry(Map<String, DecoderModel> models, LoraSettings lora, long seed) {
        this.models = Map.copyOf(models);
        this.lora = lora;
        this.seed = seed;
    }

    public DecoderModel model(String name) {
        DecoderModel m = models.get(name);
        if (m == null) {
            throw new IllegalArgumentException("no model named '" + name + "'; loaded models: " + models.keySet());
        }
        return m;
    }

    /** The adapter of an adapter policy, created fresh (B = 0, so it starts as the base model) on first use. */
    public synchronized LoraAdapter adapter(PolicyRef ref) {
        if (ref.adapter() == null) {
            return null;
        }
        // seeded by the adapter's name, not the model's path: moving the model directory keeps a run reproducible
        return adapters.computeIfAbsent(
                ref,
                r -> LoraAdapter.create(
                        r.adapter(),
                        model(r.model()),
                        lora.rank(),
                        lora.alpha(),
                        lora.targetModules(),
                        Seeds.derive(seed, "adapter", r.adapter())));
    }

    /**
     * Replaces an adapter (after loading one from disk); the old one is closed. Takes the write lock, so no batch
     * runs with half of the change.
     */
    public void putAdapter(PolicyRef ref, LoraAdapter adapter) {
        lock.writeLock().lock();
        try {
            LoraAdapter old;
            synchronized (this) {
                old = adapters.put(ref, adapter);
            }
            if (old != null && old != adapter) {
                old.close();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Replaces a base model's weights in place (names and shapes as the model's own). Takes the write lock, so no
     * batch sees half of them.
     *
     * @throws IllegalArgumentException when a tensor is missing or its shape differs
     */
    public void setWeights(String model, Map<String, Tensor> weights) {
        lock.writeLock().lock();
        try {
            model(model).setWeights(weights);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Removes and closes an adapter; returns whether there was one. Takes the write lock, so no batch that uses it
     * is running (a request still queued for it fails).
     */
    public boolean removeAdapter(PolicyRef ref) {
        lock.writeLock().lock();
        try {
            LoraAdapter old;
            synchronized (this) {
                old = adapters.remove(ref);
                versions.remove(ref);
            }
            if (old != null) {
                old.close();
            }
            return old != null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    public synchronized long version(PolicyRef ref) {
        return versions.getOrDefault(ref, 0L);
    }

    synchronized long bump(PolicyRef ref) {
        long v = version(ref) + 1;
        versions.put(ref, v);
        return v;
    }

    synchronized void setVersion(PolicyRef ref, long v) {
        versions.put(ref, v);
    }

    /** The engine's own lock: read for a sampling batch, write for an update. Callers outside use the methods above. */
    ReadWriteLock lock() {
        return lock;
    }

    @Override
    public synchronized void close() {
        adapters.values().forEach(LoraAdapter::close);
        adapters.clear();
        models.values().forEach(DecoderModel::close);
    }
}

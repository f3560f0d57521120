package org.pettingllms.torch.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LoraAdapter;
import org.pettingllms.torch.model.LoraRows;
import org.pettingllms.torch.train.AdamW;
import org.pettingllms.torch.train.FusedOps;
import org.pettingllms.torch.train.PpoLoss;
import org.pettingllms.torch.train.SequenceBatch;

/**
 * The training state of one policy: its trainable tensors (an adapter's A and B, or all model weights), gradient
 * accumulators and optimizer. Every forward-backward runs in its own memory scope, closed at the end.
 */
final class PolicyTrainer implements AutoCloseable {
    private final PolicyRef ref;
    private final DecoderModel model;
    private final LoraAdapter adapter;
    private final Map<String, NDArray> trainable;
    private final NDManager manager;
    /**
     * Float32 gradient accumulators, only where a trainable tensor is not float32 (a bf16 tensor's own gradient is
     * bf16: summing micro-batches there would round every partial sum). A float32 tensor's gradients accumulate in its
     * own {@code .grad}, where autograd adds each backward pass's in place: the same float32 sums, in the same order,
     * as a separate accumulator, without two native calls per tensor per micro-batch and a zeroing per step.
     */
    private final Map<String, NDArray> accumulators = new LinkedHashMap<>();
    /** Whether gradients accumulate in the tensors' own {@code .grad} (every trainable tensor float32). */
    private final boolean inPlace;

    private final AdamW optimizer;
    private final TrainSettings settings;
    /** The KL reference of a fully fine-tuned policy: its weights when training began (null for adapters). */
    private final DecoderModel reference;

    /** Runs between each micro-batch's forward and backward pass: a test seam (a test collects garbage there). */
    static volatile Runnable betweenForwardAndBackward = () -> {};

    /** Made before any update of the policy (and before a checkpoint is restored into it), so a frozen reference
     * copy holds the base weights. */
    PolicyTrainer(PolicyRef ref, PolicyRegistry registry, TrainSettings settings) {
        this.ref = ref;
        this.settings = settings;
        this.model = registry.model(ref.model());
        this.adapter = registry.adapter(ref);
        boolean tower = adapter == null && settings.trainVisionTower() && model.inputEncoder() != null;
        // the reference keeps the base tower too where the tower trains (otherwise it shares the frozen one)
        this.reference = adapter == null && settings.klReference() ? model.frozenCopy(tower) : null;
        if (adapter != null) {
            this.trainable = adapter.parameters();
        } else if (tower) {
            this.trainable = new LinkedHashMap<>(model.parameters());
            this.trainable.putAll(model.inputEncoder().parameters());
        } else {
            this.trainable = model.parameters();
        }
        this.manager = model.manager().newSubManager();
        this.inPlace = trainable.values().stream().allMatch(p -> p.getDataType() == DataType.FLOAT32);
        trainable.forEach((k, p) -> {
            p.setRequiresGradient(true);
            if (!inPlace) {
                accumulators.put(k, manager.zeros(p.getShape()));
            }
        });
        this.optimizer = new AdamW(manager, trainable);
    }

    Map<String, NDArray> trainable() {
        return trainable;
    }

    AdamW optimizer() {
        return optimizer;
    }

    Learner.LossStats forwardBackward(List<TrainExample> batch, LossConfig cfg) {
        long totalTokens =
                batch.stream().mapToLong(e -> e.completionTokens().size()).sum();
        if (batch.isEmpty() || totalTokens == 0) {
            return new Learner.LossStats(0, 0, 0, 0, 0, 0);
        }
        double loss = 0;
        double shift = 0;
        double clip = 0;
        double kl = 0;
        double entropy = 0;
        int micro = settings.microBatchSize();
        batch = samePromptsTogether(batch);
        for (int from = 0; from < batch.size(); from += micro) {
            List<TrainExample> chunk = batch.subList(from, Math.min(batch.size(), from + micro));
            long chunkTokens =
                    chunk.stream().mapToLong(e -> e.completionTokens().size()).sum();
            // weights that make the accumulated gradient equal the gradient of the whole mini-batch's loss
            double weight = cfg.aggregation() == LossConfig.Aggregation.TOKEN_MEAN
                    ? (double) chunkTokens / totalTokens
                    : (double) chunk.size() / batch.size();
            StepResult r = step(chunk, cfg, weight);
            loss += r.lossValue() * weight;
            clip += r.clipFraction() * chunkTokens;
            shift += r.logprobShift() * chunkTokens;
            kl += r.kl() * weight;
            entropy += r.entropy() * weight;
        }
        return new Learner.LossStats(loss, clip / totalTokens, kl, entropy, shift / totalTokens, totalTokens);
    }

    /**
     * Each example's completion logprobs under the current weights, micro-batch by micro-batch, no gradients. Runs
     * under no-grad whatever the caller's thread records (a thread that did not start the engine records by
     * default): values only, no graph to build and keep.
     */
    List<FloatSeq> logprobs(List<TrainExample> batch) {
        List<FloatSeq> out = new ArrayList<>(batch.size());
        for (int from = 0; from < batch.size(); from += settings.microBatchSize()) {
            List<TrainExample> chunk = batch.subList(from, Math.min(batch.size(), from + settings.microBatchSize()));
            List<int[]> completions =
                    chunk.stream().map(e -> e.completionTokens().toArray()).toList();
            SequenceBatch sb = SequenceBatch.of(chunk);
            try (Torch.NoGradients noGrad = Torch.noGradients();
                    NDManager scope = model.manager().newSubManager()) {
                SequenceBatch.Logprobs lp = sb.logprobs(model, scope, adapter, false, settings.sharePrompts());
                float[] all = lp.logprobs().toFloatArray();
                for (int r = 0; r < chunk.size(); r++) {
                    out.add(FloatSeq.of(lp.row(all, r, completions.get(r).length)));
                }
            }
        }
        return out;
    }

    /** Each example's top {@code n} next tokens at its completion positions (no gradients), one example at a time. */
    List<SequenceBatch.Top> topLogprobs(List<TrainExample> batch, int n) {
        List<SequenceBatch.Top> out = new ArrayList<>(batch.size());
        for (TrainExample e : batch) {
            SequenceBatch sb = SequenceBatch.of(List.of(e));
            try (Torch.NoGradients noGrad = Torch.noGradients();
                    NDManager scope = model.manager().newSubManager()) {
                out.addAll(sb.topLogprobs(model, scope, adapter == null ? null : LoraRows.all(adapter, 1), n));
            }
        }
        return out;
    }

    /** Mean negative log-likelihood of all completion tokens of {@code batch}, accumulated over micro-batches. */
    Learner.LossStats forwardBackwardSupervised(List<TrainExample> batch) {
        long total = batch.stream().mapToLong(e -> e.completionTokens().size()).sum();
        if (total == 0) {
            return new Learner.LossStats(0, 0, 0, 0, 0, 0);
        }
        double loss = 0;
        List<TrainExample> grouped = samePromptsTogether(batch);
        for (int from = 0; from < grouped.size(); from += settings.microBatchSize()) {
            List<TrainExample> chunk =
                    grouped.subList(from, Math.min(grouped.size(), from + settings.microBatchSize()));
            SequenceBatch sb = SequenceBatch.of(chunk);
            try (NDManager scope = model.manager().newSubManager();
                    GradientCollector gc = Torch.engine().newGradientCollector()) {
                SequenceBatch.Logprobs lp = sb.logprobs(model, scope, adapter, false, settings.sharePrompts());
                NDArray nll = lp.logprobs().mul(lp.mask()).sum().neg().div(Torch.scalar(scope, total)); // token mean
                betweenForwardAndBackward.run();
                gc.backward(nll);
                loss += nll.getFloat();
            }
            accumulateGradients();
        }
        return new Learner.LossStats(loss, 0, 0, 0, 0, total);
    }

    /**
     * The examples reordered so that those with the same prompt are adjacent (first-seen order), so that a
     * micro-batch holds whole groups and runs each prompt once; the loss is a sum over examples, so the order does
     * not change it.
     */
    private List<TrainExample> samePromptsTogether(List<TrainExample> batch) {
        if (!settings.sharePrompts()) {
            return batch;
        }
        Map<List<Object>, List<TrainExample>> groups = new LinkedHashMap<>();
        batch.forEach(e -> groups.computeIfAbsent(List.of(e.promptTokens(), e.images()), k -> new ArrayList<>())
                .add(e));
        List<TrainExample> out = new ArrayList<>(batch.size());
        groups.values().forEach(out::addAll);
        return out;
    }

    /** Host values of one micro-batch's loss. */
    private record StepResult(double lossValue, double clipFraction, double kl, double entropy, double logprobShift) {}

    private StepResult step(List<TrainExample> chunk, LossConfig cfg, double weight) {
        List<int[]> prompts = new ArrayList<>();
        List<int[]> completions = new ArrayList<>();
        List<float[]> old = new ArrayList<>();
        float[] adv = new float[chunk.size()];
        for (int i = 0; i < chunk.size(); i++) {
            TrainExample e = chunk.get(i);
            prompts.add(e.promptTokens().toArray());
            completions.add(e.completionTokens().toArray());
            old.add(e.oldLogprobs().toArray());
            adv[i] = (float) e.advantage();
        }
        SequenceBatch sb = new SequenceBatch(
                prompts, completions, chunk.stream().map(TrainExample::images).toList());
        StepResult result;
        try (NDManager scope = model.manager().newSubManager();
                GradientCollector gc = Torch.engine().newGradientCollector()) {
            boolean share = settings.sharePrompts();
            SequenceBatch.Logprobs lp = sb.logprobs(model, scope, adapter, cfg.entropyCoef() > 0, share);
            NDArray oldLp = lp.align(scope, old);
            NDArray advantages = chunk.stream().allMatch(TrainExample::uniform)
                    ? scope.create(adv, new Shape(chunk.size(), 1))
                    : lp.align(scope, tokenAdvantages(chunk)); // per-token weights (asynchronous training)
            NDArray refLp = null;
            if (cfg.klCoef() > 0) {
                // AT-GRPO.md k3 KL to the reference: the base model without the adapter, or the frozen copy
                if (adapter == null && reference == null) {
                    throw new IllegalStateException("klCoef > 0 on a fully fine-tuned policy needs a reference copy:"
                            + " create the learner with TrainSettings.klReference = true");
                }
                refLp = sb.logprobs(adapter != null ? model : reference, scope, null, false, share)
                        .logprobs()
                        .stopGradient(); // the same layout as lp: the sharing decision depends on the batch only
            }
            PpoLoss.Result r = PpoLoss.compute(lp.logprobs(), oldLp, advantages, lp.mask(), refLp, lp.entropy(), cfg);
            betweenForwardAndBackward.run();
            gc.backward(r.loss().mul(Torch.scalar(scope, weight)));
            result = new StepResult(r.loss().getFloat(), r.clipFraction(), r.kl(), r.entropy(), r.logprobShift());
        }
        accumulateGradients();
        return result;
    }

    /** Each row's advantage per completion token: {@code advantage x tokenWeights[t]}. */
    private static List<float[]> tokenAdvantages(List<TrainExample> chunk) {
        List<float[]> out = new ArrayList<>(chunk.size());
        for (TrainExample e : chunk) {
            float[] a = new float[e.completionTokens().size()];
            for (int t = 0; t < a.length; t++) {
                a[t] = (float) e.tokenAdvantage(t);
            }
            out.add(a);
        }
        return out;
    }

    /**
     * Adds the fresh gradients to the accumulators and zeroes the tensors' own gradients; nothing where they
     * accumulate in place.
     */
    private void accumulateGradients() {
        if (inPlace) {
            return;
        }
        try (Torch.NoGradients noGrad = Torch.noGradients();
                NDManager tmp = manager.newSubManager()) {
            NDArray zero = tmp.create(0f);
            trainable.forEach((k, p) -> {
                NDArray g = p.getGradient();
                accumulators.get(k).addi(g);
                g.muli(zero);
                g.close();
            });
        }
    }

    /**
     * Clips, applies AdamW with {@code params}, clears the accumulators; skipped when the norm is not finite. Runs
     * without gradient recording (PyTorch's optimizers step under no_grad): the weights are leaves that require
     * gradients, and grad mode is per OS thread, on by default in a thread that did not start the engine.
     */
    Learner.OptimStats optimStep(OptimParams params) {
        try (Torch.NoGradients noGrad = Torch.noGradients()) {
            return optimStepNoGrad(params);
        }
    }

    private Learner.OptimStats optimStepNoGrad(OptimParams params) {
        try (NDManager own = manager.newSubManager()) {
            return optimStepNoGrad(params, inPlace ? ownGradients(own) : accumulators);
        }
    }

    /**
     * The trainable tensors' own gradients (handles to their {@code .grad}, in {@code scope}), zeroed after the
     * update (by DJL's per-tensor update, or by {@link FusedOps#zero}), so the next step starts from zero.
     */
    private Map<String, NDArray> ownGradients(NDManager scope) {
        Map<String, NDArray> out = new LinkedHashMap<>();
        trainable.forEach((k, p) -> {
            NDArray g = p.getGradient();
            g.attach(scope);
            out.put(k, g);
        });
        return out;
    }

    private Learner.OptimStats optimStepNoGrad(OptimParams params, Map<String, NDArray> grads) {
        // the norm of each tensor, all read back in one copy (a read per tensor waited for the device 310 times a
        // step at the Qwen3-0.6B shape), summed as squares in double on the host in the tensors' order: one
        // multi-tensor reduction with FusedOps, else one native call per tensor
        double sq = 0;
        for (float n : gradientNorms(grads.values())) {
            sq += (double) n * n;
        }
        double norm = Math.sqrt(sq);
        boolean skip = !Double.isFinite(norm);
        try (NDManager tmp = manager.newSubManager()) {
            if (!skip) {
                float scale = norm > params.maxGradNorm() ? (float) (params.maxGradNorm() / (norm + 1e-6)) : 1f;
                optimizer.update(grads, params, scale);
                // the next step's gradients start from zero: with FusedOps one call for all; per tensor, DJL's update
                // has zeroed each tensor's own .grad (all there is to zero where they accumulate in place)
                if (FusedOps.available()) {
                    FusedOps.zero(grads.values());
                } else if (!inPlace) {
                    NDArray zero = tmp.create(0f);
                    grads.values().forEach(g -> g.muli(zero));
                }
            } else {
                // NaN * 0 is NaN: overwrite the accumulators and the tensors' own gradients from the host
                // (an indexed copy writes into the tensors' own memory; set(float[]) would swap in a Java buffer
                // that the closed gradient handle no longer keeps alive)
                if (!inPlace) {
                    grads.values().forEach(g -> g.set(new NDIndex(":"), tmp.zeros(g.getShape())));
                }
                trainable.values().forEach(p -> {
                    NDArray g = p.getGradient();
                    g.set(new NDIndex(":"), tmp.zeros(g.getShape(), g.getDataType(), g.getDevice()));
                    g.close();
                });
            }
        }
        return new Learner.OptimStats(norm, params.learningRate(), skip);
    }

    /** Each gradient's L2 norm, in order. */
    private float[] gradientNorms(java.util.Collection<NDArray> gradients) {
        if (gradients.isEmpty()) {
            return new float[0];
        }
        if (FusedOps.available()) {
            return FusedOps.norms(gradients);
        }
        try (NDManager norms = manager.newSubManager()) {
            NDList each = new NDList(gradients.size());
            for (NDArray g : gradients) {
                NDArray n = g.norm();
                n.attach(norms);
                each.add(n);
            }
            NDArray all = NDArrays.stack(each);
            all.attach(norms);
            return all.toFloatArray();
        }
    }

    long optimizerSteps() {
        return optimizer.step();
    }

    PolicyRef ref() {
        return ref;
    }

    LoraAdapter adapter() {
        return adapter;
    }

    DecoderModel model() {
        return model;
    }

    @Override
    public void close() {
        optimizer.close();
        manager.close();
        if (reference != null) {
            reference.close();
        }
    }
}

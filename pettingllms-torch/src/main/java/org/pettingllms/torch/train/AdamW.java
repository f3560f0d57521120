package org.pettingllms.torch.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.torch.model.DecoderModel;

/**
 * AdamW (Loshchilov and Hutter): decoupled weight decay {@code p -= lr * wd * p}, then
 * {@code m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr * m_hat / (sqrt(v_hat) + eps)} with bias-corrected
 * moments. Updates parameters in place; its state lives in its own manager.
 *
 * <p>A parameter held in bfloat16 gets a float32 master copy here (mixed-precision training's master weights): the
 * update is applied to the master and the parameter is overwritten with it rounded, since an update of lr x 1e-3
 * relative size is below bfloat16's resolution (2^-8) and would be lost on the parameter itself. The moments are
 * float32 for every parameter.
 */
public final class AdamW implements AutoCloseable {
    private final NDManager manager;
    private final Map<String, NDArray> params;
    private final Map<String, NDArray> m = new LinkedHashMap<>();
    private final Map<String, NDArray> v = new LinkedHashMap<>();
    /** Float32 masters of the parameters not held in float32. */
    private final Map<String, NDArray> master = new LinkedHashMap<>();

    private long step;

    public AdamW(NDManager parent, Map<String, NDArray> params) {
        this.manager = parent.newSubManager();
        this.params = params;
        params.forEach((k, p) -> {
            m.put(k, manager.zeros(p.getShape(), DataType.FLOAT32, p.getDevice()));
            v.put(k, manager.zeros(p.getShape(), DataType.FLOAT32, p.getDevice()));
            if (p.getDataType() != DataType.FLOAT32) {
                NDArray w = p.toType(DataType.FLOAT32, true);
                w.attach(manager);
                master.put(k, w);
            }
        });
    }

    public long step() {
        return step;
    }

    /**
     * One update with gradients {@code grads} (same keys as the parameters) with {@code config}'s rate and moments.
     *
     * <p>Each tensor is updated by one native call (DJL's {@code adamUpdate}: decoupled decay, both moments and the
     * step inside libtorch) instead of about fifteen calls from Java, each with its own handle and scalar: on a GPU the
     * per-call overhead, not the arithmetic, was the optimizer's time (310 tensors at the Qwen3-0.6B shape). That call
     * computes {@code p -= lr_t m / (sqrt(v) + eps_t)}; with {@code lr_t = lr sqrt(bc2) / bc1} and {@code eps_t = eps
     * sqrt(bc2)} this is the formula above exactly ({@code m_hat / (sqrt(v_hat) + eps)} multiplied through by
     * {@code sqrt(bc2)}), not Kingma and Ba's epsilon-hat variant. Its gradient clamp is off ({@code clip < 0}: it
     * clamps from above only); the norm clip happens before, in the trainer.
     */
    public void update(Map<String, NDArray> grads, OptimParams config) {
        update(grads, config, 1f);
    }

    /**
     * {@link #update(Map, OptimParams)} with every gradient first multiplied by {@code gradScale} in place (the norm
     * clip's factor; 1: none). Zeroing gradients is the caller's: DJL's per-tensor call below also zeroes each
     * parameter's own {@code .grad}, the fused call touches no gradient but to scale it.
     *
     * <p>With {@link FusedOps#available()} every tensor is updated by one native call for the whole step (PyTorch's
     * multi-tensor kernels) doing the same arithmetic as the per-tensor calls below.
     */
    public void update(Map<String, NDArray> grads, OptimParams config, float gradScale) {
        step++;
        double bc1 = 1 - Math.pow(config.beta1(), step);
        double bc2 = 1 - Math.pow(config.beta2(), step);
        float lr = (float) config.learningRate();
        float lrT = (float) (config.learningRate() * Math.sqrt(bc2) / bc1);
        float epsT = (float) (config.eps() * Math.sqrt(bc2));
        if (FusedOps.available()) {
            List<NDArray> p = new ArrayList<>(params.size());
            List<NDArray> g = new ArrayList<>(params.size());
            params.forEach((k, held) -> {
                p.add(master.getOrDefault(k, held));
                g.add(grads.get(k));
            });
            FusedOps.adamW(
                    p,
                    g,
                    m.values(),
                    v.values(),
                    lr,
                    lrT,
                    (float) config.weightDecay(),
                    (float) config.beta1(),
                    (float) config.beta2(),
                    epsT,
                    gradScale);
            roundMasters();
            return;
        }
        NDArray scale = gradScale == 1f ? null : manager.create(gradScale);
        // the native call frees its own temporaries; only a master's rounded copy needs a scope (one per tensor)
        for (Map.Entry<String, NDArray> e : params.entrySet()) {
            NDArray held = e.getValue();
            NDArray p = master.getOrDefault(e.getKey(), held);
            NDArray g = grads.get(e.getKey());
            if (scale != null) {
                g.muli(scale);
            }
            p.getNDArrayInternal()
                    .adamUpdate(
                            new NDList(p, g, m.get(e.getKey()), v.get(e.getKey())),
                            new NDList(held), // its own .grad is zeroed: the trainer accumulates in its own tensors
                            lr,
                            lrT,
                            (float) config.weightDecay(),
                            1f,
                            -1f,
                            (float) config.beta1(),
                            (float) config.beta2(),
                            epsT,
                            false,
                            true);
            if (p != held) {
                roundMaster(e.getKey());
            }
        }
        if (scale != null) {
            scale.close();
        }
    }

    /** Every parameter held in another type overwritten with its updated float32 master, rounded. */
    private void roundMasters() {
        master.keySet().forEach(this::roundMaster);
    }

    private void roundMaster(String key) {
        NDArray held = params.get(key);
        try (NDManager tmp = manager.newSubManager()) {
            held.set(new NDIndex(":"), t(tmp, master.get(key).toType(held.getDataType(), false)));
        }
    }

    private static NDArray t(NDManager tmp, NDArray a) {
        a.attach(tmp);
        return a;
    }

    /** The optimizer state as named host tensors: {@code <param>.exp_avg}, {@code <param>.exp_avg_sq}. */
    public Map<String, NDArray> state() {
        Map<String, NDArray> out = new LinkedHashMap<>();
        m.forEach((k, a) -> out.put(k + ".exp_avg", a));
        v.forEach((k, a) -> out.put(k + ".exp_avg_sq", a));
        return out;
    }

    /**
     * Masters taken again from the parameters as they are now (after weights were restored into them). A bf16
     * checkpoint holds the rounded weights, so a resumed bf16 run goes on from those, not from the float32 masters
     * the interrupted run held: resuming is exact in float32 only.
     */
    public void resyncMasters() {
        try (NDManager tmp = manager.newSubManager()) {
            master.forEach((k, w) ->
                    w.set(new NDIndex(":"), t(tmp, params.get(k).toType(DataType.FLOAT32, false))));
        }
    }

    /** Restores moments (in place) and the step count. */
    public void restore(Map<String, float[]> state, long restoredStep) {
        resyncMasters();
        m.forEach((k, a) -> DecoderModel.copyInto(a, require(state, k + ".exp_avg")));
        v.forEach((k, a) -> DecoderModel.copyInto(a, require(state, k + ".exp_avg_sq")));
        this.step = restoredStep;
    }

    private static float[] require(Map<String, float[]> state, String key) {
        float[] f = state.get(key);
        if (f == null) {
            throw new IllegalArgumentException("optimizer state lacks '" + key + "'");
        }
        return f;
    }

    @Override
    public void close() {
        manager.close();
    }
}

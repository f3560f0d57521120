package org.pettingllms.torch.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;

/**
 * A Llama / Qwen2 / Qwen3 decoder in Hugging Face layout: RMSNorm, rotary embeddings (rotate-half), grouped-query
 * attention, SwiGLU MLP, Qwen3's per-head q/k RMSNorm, Qwen2's q/k/v bias, tied or untied output head.
 */
public final class DecoderModel implements AutoCloseable {
    private final ModelConfig config;
    private final NDManager manager;
    private final Map<String, NDArray> params;
    private final List<Layer> layers = new ArrayList<>();
    private final NDArray invFreq;
    /** RoPE's rotate-half as one gather: element j of the rotated vector is element rotation[j]. */
    private final NDIndex rotation;
    /** RoPE's rotate-half signs: -1 for the first half (it receives -x2), +1 for the second. */
    private final NDArray rotationSign;

    private record Layer(NDArray ln1, NDArray ln2, NDArray qNorm, NDArray kNorm, Linear q, Linear k, Linear v,
                         Linear o, Linear gate, Linear up, Linear down) {
    }

    private DecoderModel(ModelConfig config, NDManager manager, Map<String, NDArray> params) {
        this.config = config;
        this.manager = manager;
        this.params = params;
        for (int i = 0; i < config.numLayers(); i++) {
            String p = "model.layers." + i + ".";
            layers.add(new Layer(need(p + "input_layernorm.weight"), need(p + "post_attention_layernorm.weight"),
                    config.qkNorm() ? need(p + "self_attn.q_norm.weight") : null,
                    config.qkNorm() ? need(p + "self_attn.k_norm.weight") : null,
                    linear(p + "self_attn.q_proj", config.qkvBias()), linear(p + "self_attn.k_proj", config.qkvBias()),
                    linear(p + "self_attn.v_proj", config.qkvBias()), linear(p + "self_attn.o_proj", false),
                    linear(p + "mlp.gate_proj", false), linear(p + "mlp.up_proj", false),
                    linear(p + "mlp.down_proj", false)));
        }
        need("model.embed_tokens.weight");
        need("model.norm.weight");
        if (!config.tieWordEmbeddings()) {
            need("lm_head.weight");
        }
        // inv_freq_i = 1 / theta^(2i / d), computed in double then rounded once
        float[] inv = new float[config.headDim() / 2];
        for (int i = 0; i < inv.length; i++) {
            inv[i] = (float) (1.0 / Math.pow(config.ropeTheta(), (2.0 * i) / config.headDim()));
        }
        this.invFreq = manager.create(inv);
        int hd = config.headDim();
        long[] perm = new long[hd];
        float[] sign = new float[hd];
        for (int j = 0; j < hd; j++) {
            perm[j] = j < hd / 2 ? j + hd / 2 : j - hd / 2;
            sign[j] = j < hd / 2 ? -1f : 1f;
        }
        this.rotation = new NDIndex("..., {}", manager.create(perm));
        this.rotationSign = manager.create(sign);
    }

    private NDArray need(String name) {
        NDArray a = params.get(name);
        if (a == null) {
            throw new IllegalArgumentException("model weights lack '" + name + "' (model_type " + config.modelType() + ")");
        }
        return a;
    }

    private Linear linear(String name, boolean bias) {
        return new Linear(name, need(name + ".weight"), bias ? need(name + ".bias") : null);
    }

    /** Linear weights are held transposed ([in, out]); see {@link Linear}. */
    static boolean isLinearWeight(String name) {
        return name.startsWith("model.layers.") && name.endsWith("_proj.weight");
    }

    /** The transpose of a 2-d host tensor. */
    static Tensor transpose(Tensor t) {
        int rows = (int) t.shape()[0];
        int cols = (int) t.shape()[1];
        float[] out = new float[rows * cols];
        float[] in = t.data();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                out[c * rows + r] = in[r * cols + c];
            }
        }
        return new Tensor(new long[] {cols, rows}, out);
    }

    /** Overwrites weights in place from Hugging Face layout tensors (every weight must be given). */
    public void setWeights(Map<String, Tensor> tensors) {
        for (Map.Entry<String, NDArray> e : params.entrySet()) {
            Tensor t = tensors.get(e.getKey());
            if (t == null || t.numel() != e.getValue().getShape().size()) {
                throw new IllegalArgumentException("weights lack '" + e.getKey() + "' or it has the wrong size");
            }
            e.getValue().set((isLinearWeight(e.getKey()) ? transpose(t) : t).data());
        }
    }

    public static DecoderModel load(Path dir, Device device) throws IOException {
        ModelConfig cfg = ModelConfig.read(dir);
        return fromTensors(cfg, SafeTensors.readModelDir(dir), device);
    }

    public static DecoderModel fromTensors(ModelConfig cfg, Map<String, Tensor> tensors, Device device) {
        NDManager m = Torch.engine().newBaseManager(device);
        Map<String, NDArray> params = new LinkedHashMap<>();
        tensors.forEach((k, t) -> {
            if (k.endsWith("rotary_emb.inv_freq")) {
                return;
            }
            Tensor stored = isLinearWeight(k) ? transpose(t) : t;
            params.put(k, m.create(stored.data(), new Shape(stored.shape())));
        });
        if (cfg.tieWordEmbeddings()) {
            params.remove("lm_head.weight");
        }
        try {
            return new DecoderModel(cfg, m, params);
        } catch (RuntimeException e) {
            m.close();
            throw e;
        }
    }

    /**
     * A fresh model: weights ~ N(0, 0.02) as Hugging Face initialises them ({@code initializer_range}), norms 1,
     * biases 0. Deterministic for a seed.
     */
    public static DecoderModel random(ModelConfig cfg, long seed, Device device) {
        SplittableRandom rng = new SplittableRandom(seed);
        Map<String, Tensor> t = new LinkedHashMap<>();
        int h = cfg.hiddenSize();
        int q = cfg.numHeads() * cfg.headDim();
        int kv = cfg.numKvHeads() * cfg.headDim();
        normal(t, "model.embed_tokens.weight", rng, cfg.vocabSize(), h);
        for (int i = 0; i < cfg.numLayers(); i++) {
            String p = "model.layers." + i + ".";
            ones(t, p + "input_layernorm.weight", h);
            ones(t, p + "post_attention_layernorm.weight", h);
            if (cfg.qkNorm()) {
                ones(t, p + "self_attn.q_norm.weight", cfg.headDim());
                ones(t, p + "self_attn.k_norm.weight", cfg.headDim());
            }
            normal(t, p + "self_attn.q_proj.weight", rng, q, h);
            normal(t, p + "self_attn.k_proj.weight", rng, kv, h);
            normal(t, p + "self_attn.v_proj.weight", rng, kv, h);
            if (cfg.qkvBias()) {
                t.put(p + "self_attn.q_proj.bias", new Tensor(new long[] {q}, new float[q]));
                t.put(p + "self_attn.k_proj.bias", new Tensor(new long[] {kv}, new float[kv]));
                t.put(p + "self_attn.v_proj.bias", new Tensor(new long[] {kv}, new float[kv]));
            }
            normal(t, p + "self_attn.o_proj.weight", rng, h, q);
            normal(t, p + "mlp.gate_proj.weight", rng, cfg.intermediateSize(), h);
            normal(t, p + "mlp.up_proj.weight", rng, cfg.intermediateSize(), h);
            normal(t, p + "mlp.down_proj.weight", rng, h, cfg.intermediateSize());
        }
        ones(t, "model.norm.weight", h);
        if (!cfg.tieWordEmbeddings()) {
            normal(t, "lm_head.weight", rng, cfg.vocabSize(), h);
        }
        return fromTensors(cfg, t, device);
    }

    private static void normal(Map<String, Tensor> t, String name, SplittableRandom rng, int rows, int cols) {
        float[] d = new float[rows * cols];
        for (int i = 0; i < d.length; i++) {
            d[i] = (float) (gaussian(rng) * 0.02);
        }
        t.put(name, new Tensor(new long[] {rows, cols}, d));
    }

    private static double gaussian(SplittableRandom rng) {
        double u = 1 - rng.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextDouble());
    }

    private static void ones(Map<String, Tensor> t, String name, int n) {
        float[] d = new float[n];
        java.util.Arrays.fill(d, 1f);
        t.put(name, new Tensor(new long[] {n}, d));
    }

    public ModelConfig config() {
        return config;
    }

    public NDManager manager() {
        return manager;
    }

    /**
     * Every weight as held in memory, keyed by its Hugging Face name (linear weights transposed, [in, out]):
     * what training updates in place.
     */
    public Map<String, NDArray> parameters() {
        return params;
    }

    /** A frozen copy of the current weights in a memory scope of its own (a reference policy for the KL term). */
    public DecoderModel frozenCopy() {
        NDManager m = Torch.engine().newBaseManager(manager.getDevice());
        Map<String, NDArray> copy = new LinkedHashMap<>();
        params.forEach((k, a) -> {
            NDArray d = a.duplicate();
            d.attach(m);
            copy.put(k, d);
        });
        return new DecoderModel(config, m, copy);
    }

    public long parameterCount() {
        return params.values().stream().mapToLong(a -> a.getShape().size()).sum();
    }

    public List<Linear> linears() {
        List<Linear> out = new ArrayList<>();
        for (Layer l : layers) {
            out.addAll(List.of(l.q(), l.k(), l.v(), l.o(), l.gate(), l.up(), l.down()));
        }
        return out;
    }

    /** Host copies of the weights in Hugging Face layout (tied output head left out, as transformers saves it). */
    public Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            Tensor t = new Tensor(v.getShape().getShape(), v.toFloatArray());
            out.put(k, isLinearWeight(k) ? transpose(t) : t);
        });
        return out;
    }

    /** Writes {@code config.json} and {@code model.safetensors} into {@code dir}, each atomically. */
    public void save(Path dir) throws IOException {
        Files.createDirectories(dir);
        SafeTensors.write(dir.resolve("model.safetensors"), stateDict());
        org.pettingllms.core.util.AtomicFiles.writeString(dir.resolve("config.json"), config.toJson().toPrettyString());
    }

    /**
     * Logits [B, T, V] for token ids [B, T] (int64) at the given positions [B, T] (int64). {@code bias} is the
     * additive attention mask [B, 1, T, S] over the S = cached + T keys (0 allowed, a large negative value
     * masked). With a cache, this step's keys and values are appended to it. Every intermediate belongs to
     * {@code ids}'s manager.
     */
    public NDArray forward(NDArray ids, NDArray positions, NDArray bias, KvCache cache, LoraRows lora) {
        long b = ids.getShape().get(0);
        long t = ids.getShape().get(1);
        NDArray h = Scope.of(ids, params.get("model.embed_tokens.weight").get(new NDIndex("{}", ids)));
        NDArray freqs = positions.toType(DataType.FLOAT32, false).expandDims(-1).mul(invFreq);
        NDArray emb = freqs.concat(freqs, -1).expandDims(1); // [B, 1, T, hd]
        // rope(x) = x * cos + rotate_half(x) * sin, with rotate_half a signed gather; q also takes the attention
        // scale 1/sqrt(hd) here, once per forward instead of once per layer on the scores
        NDArray cos = emb.cos();
        NDArray sin = emb.sin().mul(rotationSign);
        float scale = (float) (1.0 / Math.sqrt(config.headDim()));
        NDArray cosQ = cos.mul(scale);
        NDArray sinQ = sin.mul(scale);
        // the g query heads of a key-value head are stacked along time in attention(): the mask repeats g times
        NDArray groupBias = config.groups() == 1 ? bias : bias.tile(new long[] {1, 1, config.groups(), 1});
        for (int i = 0; i < layers.size(); i++) {
            Layer l = layers.get(i);
            NDArray x = rmsNorm(h, l.ln1());
            NDArray q = heads(lin(l.q(), x, lora), b, t, config.numHeads(), l.qNorm());
            NDArray k = heads(lin(l.k(), x, lora), b, t, config.numKvHeads(), l.kNorm());
            NDArray v = lin(l.v(), x, lora).reshape(b, t, config.numKvHeads(), config.headDim()).transpose(0, 2, 1, 3);
            q = q.mul(cosQ).add(q.get(rotation).mul(sinQ));
            k = k.mul(cos).add(k.get(rotation).mul(sin));
            NDArray kT;
            if (cache != null) {
                NDArray[] kv = cache.append(i, k, v);
                kT = kv[0];
                v = kv[1];
            } else {
                kT = k.transpose(0, 1, 3, 2);
            }
            NDArray attn = attention(q, kT, v, groupBias, b, t);
            h = h.add(lin(l.o(), attn, lora));
            NDArray y = rmsNorm(h, l.ln2());
            NDArray gate = lin(l.gate(), y, lora);
            h = h.add(lin(l.down(), Activation.sigmoid(gate).mul(gate).mul(lin(l.up(), y, lora)), lora));
        }
        h = rmsNorm(h, params.get("model.norm.weight"));
        NDArray head = config.tieWordEmbeddings() ? params.get("model.embed_tokens.weight") : params.get("lm_head.weight");
        return h.matMul(Scope.of(h, head.transpose()));
    }

    /**
     * Grouped-query attention without copying keys and values per query head: the g = heads / kvHeads query heads
     * that share a key-value head are stacked along the time axis, [B, kvH, g*T, hd], so one matmul serves them
     * (query head h uses key-value head h / g, as transformers' repeat_kv).
     */
    /** @param kT keys transposed, [B, kvH, hd, S] */
    private NDArray attention(NDArray q, NDArray kT, NDArray v, NDArray groupBias, long b, long t) {
        long kvh = config.numKvHeads();
        long g = config.groups();
        long hd = config.headDim();
        NDArray qg = q.reshape(b, kvh, g * t, hd); // q is already scaled by 1/sqrt(hd)
        NDArray probs = qg.matMul(kT).add(groupBias).softmax(-1); // [B, kvH, g*T, S]
        return probs.matMul(v).reshape(b, config.numHeads(), t, hd).transpose(0, 2, 1, 3)
                .reshape(b, t, (long) config.numHeads() * hd);
    }

    private NDArray lin(Linear l, NDArray x, LoraRows lora) {
        NDArray y = l.apply(x);
        if (lora == null) {
            return y;
        }
        NDArray d = lora.delta(l, x);
        return d == null ? y : y.add(d);
    }

    /** [B, T, n*hd] -> [B, n, T, hd], with Qwen3's per-head RMSNorm when {@code norm} is given. */
    private NDArray heads(NDArray x, long b, long t, int n, NDArray norm) {
        NDArray r = x.reshape(b, t, n, config.headDim());
        if (norm != null) {
            r = rmsNorm(r, norm);
        }
        return r.transpose(0, 2, 1, 3);
    }

    /** x * rsqrt(mean(x^2) + eps) * w, over the last axis. */
    private NDArray rmsNorm(NDArray x, NDArray w) {
        NDArray var = x.square().mean(new int[] {-1}, true);
        return x.div(var.add(config.rmsNormEps()).sqrt()).mul(w);
    }

    @Override
    public void close() {
        manager.close();
    }
}

package org.pettingllms.torch.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;

/**
 * A Llama / Qwen2 / Qwen3 decoder in Hugging Face layout: RMSNorm, rotary embeddings (rotate-half), grouped-query
 * attention, SwiGLU MLP, Qwen3's per-head q/k RMSNorm, Qwen2's q/k/v bias, tied or untied output head.
 *
 * <p>Weights are held in float32 or bfloat16 ({@link #dataType()}). In bfloat16 the matmuls run in bfloat16 and
 * the numerically delicate steps in float32, as transformers' eager Qwen3 does: the rotary angles (cos and sin made
 * in float32, then cast), RMSNorm (normalised in float32, cast back, then scaled by the weight), the attention
 * softmax (scores plus mask in float32, probabilities cast back) and the returned logits (float32 for sampling and
 * log-softmax). Every tensor is made on the device of the model's manager.
 *
 * <p>Its length is one concern, the decoder's pass over its weights (held, loaded, copied, saved and run): a layer's
 * fused weight layout is {@link DecoderLayer}'s, fresh weights {@link RandomWeights}', which position each rotary
 * frequency turns with the family's {@link PositionScheme}, and what a family adds around the decoder its
 * {@link FamilyParts}.
 */
public final class DecoderModel implements AutoCloseable {
    private final ModelConfig config;
    private final NDManager manager;
    /** The weights' and activations' type: FLOAT32 or BFLOAT16. */
    private final DataType dataType;

    private final Map<String, NDArray> params;
    private final List<DecoderLayer> layers = new ArrayList<>();
    private final NDArray invFreq;
    /** The family's position scheme, image input and writer, fixed when the decoder is made. */
    private final FamilyParts family;
    /** RoPE's rotate-half as one gather along the head dimension: element j of the result is element rotation[j]. */
    private final NDIndex rotation;
    /** RoPE's rotate-half signs: -1 for the first half (it receives -x2), +1 for the second. */
    private final NDArray rotationSign;

    /** The rms-norm epsilon as an array made once (adding a Java float creates a scalar array on every call). */
    private final NDArray eps;
    /** Per q and k head of the fused projection: the attention scale 1/sqrt(hd) for q heads, 1 for k heads. */
    private final NDArray headScale;
    /** Per q and k head: row 0 (q_norm) or row 1 (k_norm) of a layer's stacked per-head norms. */
    private final NDIndex qkNormRows;
    /** Each norm weight as a [hidden, 1] column, a view sharing its storage (so it sees in-place updates). */
    private final Map<NDArray, NDArray> columns = new IdentityHashMap<>();

    private DecoderModel(ModelConfig config, NDManager manager, Map<String, NDArray> params, FamilyParts family) {
        this.config = config;
        this.manager = manager;
        this.params = params;
        this.family = family;
        this.dataType = need("model.embed_tokens.weight").getDataType();
        for (int i = 0; i < config.numLayers(); i++) {
            layers.add(DecoderLayer.fused(params, "model.layers." + i + ".", config));
        }
        need("model.embed_tokens.weight");
        need("model.norm.weight");
        if (!config.tieWordEmbeddings()) {
            need("lm_head.weight");
        }
        // inv_freq_i = 1 / theta^(2i / d), scaled as the config asks (RopeScaling), computed in double then rounded
        // once
        double[] wide = new double[config.headDim() / 2];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = 1.0 / Math.pow(config.ropeTheta(), (2.0 * i) / config.headDim());
        }
        wide = config.ropeScaling().scale(wide);
        float[] inv = new float[wide.length];
        for (int i = 0; i < inv.length; i++) {
            inv[i] = (float) wide[i];
        }
        this.invFreq = manager.create(inv, new Shape(inv.length, 1));
        int hd = config.headDim();
        long[] perm = new long[hd];
        float[] sign = new float[hd];
        for (int j = 0; j < hd; j++) {
            perm[j] = j < hd / 2 ? j + hd / 2 : j - hd / 2;
            sign[j] = j < hd / 2 ? -1f : 1f;
        }
        this.rotation = new NDIndex(":, {}", manager.create(perm));
        this.rotationSign = manager.create(sign, new Shape(hd, 1, 1));
        this.eps = manager.create((float) config.rmsNormEps());
        int nq = config.numHeads();
        int nk = config.numKvHeads();
        float[] scale = new float[nq + nk];
        long[] normRow = new long[nq + nk];
        for (int j = 0; j < nq + nk; j++) {
            scale[j] = j < nq ? (float) (1.0 / Math.sqrt(hd)) : 1f;
            normRow[j] = j < nq ? 0 : 1;
        }
        this.headScale = manager.create(scale, new Shape(nq + nk, 1, 1, 1));
        this.qkNormRows = new NDIndex("{}", manager.create(normRow));
        for (DecoderLayer l : layers) {
            columns.put(l.ln1(), l.ln1().expandDims(-1));
            columns.put(l.ln2(), l.ln2().expandDims(-1));
        }
    }

    private NDArray need(String name) {
        return DecoderLayer.need(params, config, name);
    }

    /** Overwrites weights in place from Hugging Face layout tensors (every weight must be given). */
    public void setWeights(Map<String, Tensor> tensors) {
        for (Map.Entry<String, NDArray> e : params.entrySet()) {
            Tensor t = tensors.get(e.getKey());
            if (t == null || t.numel() != e.getValue().getShape().size()) {
                throw new IllegalArgumentException("weights lack '" + e.getKey() + "' or it has the wrong size");
            }
            copyInto(e.getValue(), t.data());
        }
    }

    /**
     * Overwrites {@code param} in place with host values. {@code NDArray.set(float[])} would give a view its own
     * storage, silently cutting it off from the fused weight it belongs to; an indexed copy writes through.
     */
    public static void copyInto(NDArray param, float[] values) {
        try (NDManager tmp = param.getManager().newSubManager()) {
            param.set(new NDIndex(":"), tmp.create(values, param.getShape()).toType(param.getDataType(), false));
        }
    }

    /** Host float32 values of {@code a}, whatever its type (bfloat16 widens exactly). */
    public static float[] hostFloats(NDArray a) {
        if (a.getDataType() == DataType.FLOAT32) {
            return a.toFloatArray();
        }
        try (NDArray f = a.toType(DataType.FLOAT32, true)) {
            return f.toFloatArray();
        }
    }

    public static DecoderModel load(Path dir, Device device) throws IOException {
        return load(dir, device, DataType.FLOAT32);
    }

    /**
     * A text model directory's weights ({@code llama}, {@code qwen2}, {@code qwen3}) on {@code device}, held as
     * {@code dataType} (FLOAT32 or BFLOAT16); any family's: {@code ModelFamilies.load}.
     */
    public static DecoderModel load(Path dir, Device device, DataType dataType) throws IOException {
        ModelConfig cfg = ModelConfig.read(dir);
        return fromTensors(cfg, SafeTensors.readModelDir(dir), device, dataType);
    }

    public static DecoderModel fromTensors(ModelConfig cfg, Map<String, Tensor> tensors, Device device) {
        return fromTensors(cfg, tensors, device, DataType.FLOAT32);
    }

    /** A text decoder from Hugging Face layout tensors, on {@code device} in a memory scope of its own. */
    public static DecoderModel fromTensors(
            ModelConfig cfg, Map<String, Tensor> tensors, Device device, DataType dataType) {
        NDManager m = Torch.engine().newBaseManager(device);
        try {
            return fromTensors(cfg, tensors, m, dataType, FamilyParts.TEXT);
        } catch (RuntimeException e) {
            m.close();
            throw e;
        }
    }

    /**
     * A decoder from Hugging Face layout tensors in {@code manager} (which closing the decoder closes: a family
     * puts its own weights in a scope under it), with its family's {@code parts}.
     */
    public static DecoderModel fromTensors(
            ModelConfig cfg, Map<String, Tensor> tensors, NDManager m, DataType dataType, FamilyParts parts) {
        if (dataType != DataType.FLOAT32 && dataType != DataType.BFLOAT16) {
            throw new IllegalArgumentException("weights can be held as float32 or bfloat16, not " + dataType);
        }
        Torch.requireSupported(dataType);
        Map<String, NDArray> params = new LinkedHashMap<>();
        tensors.forEach((k, t) -> {
            if (k.endsWith("rotary_emb.inv_freq")) {
                return;
            }
            NDArray a = m.create(t.data(), new Shape(t.shape()));
            if (dataType != DataType.FLOAT32) {
                NDArray cast = a.toType(dataType, false);
                a.close(); // the float32 copy is not kept: a bf16 model holds half the memory
                a = cast;
            }
            params.put(k, a);
        });
        if (cfg.tieWordEmbeddings()) {
            params.remove("lm_head.weight");
        }
        return new DecoderModel(cfg, m, params, parts);
    }

    /**
     * A fresh model: weights ~ N(0, 0.02) as Hugging Face initialises them ({@code initializer_range}), norms 1,
     * biases 0. Deterministic for a seed.
     */
    public static DecoderModel random(ModelConfig cfg, long seed, Device device) {
        return random(cfg, seed, device, DataType.FLOAT32);
    }

    /** {@link #random(ModelConfig, long, Device)} held as {@code dataType}: the same draws, rounded once. */
    public static DecoderModel random(ModelConfig cfg, long seed, Device device, DataType dataType) {
        return fromTensors(cfg, RandomWeights.decoder(cfg, new SplittableRandom(seed)), device, dataType);
    }

    public ModelConfig config() {
        return config;
    }

    public NDManager manager() {
        return manager;
    }

    /** The type the weights are held in and the matmuls run in: FLOAT32 or BFLOAT16. */
    public DataType dataType() {
        return dataType;
    }

    /**
     * Every weight as held in memory, keyed by its Hugging Face name and in its layout (linear weights [out, in]):
     * what training updates in place.
     */
    public Map<String, NDArray> parameters() {
        return params;
    }

    /**
     * A frozen copy of the current weights in a memory scope of its own (a reference policy for the KL term).
     *
     * @param withEncoder copy the input encoder's weights too (a vision tower that trains); otherwise the copy shares
     *                    this model's encoder, which is frozen
     */
    public DecoderModel frozenCopy(boolean withEncoder) {
        NDManager m = Torch.engine().newBaseManager(manager.getDevice());
        Map<String, NDArray> copy = new LinkedHashMap<>();
        params.forEach((k, a) -> {
            NDArray d = a.duplicate();
            d.attach(m);
            copy.put(k, d);
        });
        InputEncoder encoder = family.encoder();
        InputEncoder frozenEncoder = withEncoder && encoder != null ? encoder.copy(m) : encoder;
        return new DecoderModel(config, m, copy, new FamilyParts(family.positions(), frozenEncoder, family.writer()));
    }

    /** {@link #inputEncoder()}, which a batch with images needs; a text model refuses in one line. */
    public InputEncoder requireInputEncoder() {
        InputEncoder e = family.encoder();
        if (e == null) {
            throw new IllegalArgumentException("model_type '" + config.modelType() + "' takes no images");
        }
        return e;
    }

    /** The family's image input (a vision-language family's); null for text. */
    public InputEncoder inputEncoder() {
        return family.encoder();
    }

    public long parameterCount() {
        return params.values().stream().mapToLong(a -> a.getShape().size()).sum();
    }

    public List<Linear> linears() {
        List<Linear> out = new ArrayList<>();
        for (DecoderLayer l : layers) {
            out.addAll(List.of(l.q(), l.k(), l.v(), l.o(), l.gate(), l.up(), l.down()));
        }
        return out;
    }

    /** Host copies of the weights in Hugging Face layout (tied output head left out, as transformers saves it). */
    public Map<String, Tensor> stateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            out.put(k, new Tensor(v.getShape().getShape(), hostFloats(v)));
        });
        return out;
    }

    /**
     * Writes {@code config.json} and {@code model.safetensors} into {@code dir}, each atomically; a family's
     * {@link ModelWriter} writes its whole model instead.
     */
    public void save(Path dir) throws IOException {
        if (family.writer() != null) {
            family.writer().write(this, dir);
            return;
        }
        Files.createDirectories(dir);
        SafeTensors.write(dir.resolve("model.safetensors"), stateDict());
        AtomicFiles.writeString(dir.resolve("config.json"), config.toJson().toPrettyString());
    }

    /**
     * Logits [B, T, V] for token ids [B, T] (int64) at the given positions: [B, T] (int64), or [3, B, T] for an
     * M-RoPE model (temporal, height and width; [B, T] there means the three are equal, as for text): what the
     * family's {@link PositionScheme} reads. {@code bias}
     * is the additive attention mask [B, 1, T, S] over the S = cached + T keys (0 allowed, a large negative value
     * masked). With a cache, this step's keys and values are appended to it. Every intermediate belongs to
     * {@code ids}'s manager.
     *
     * <p>Activations are feature-major, [features, N] over the N = B*T tokens: each linear layer is then
     * {@code W [out, in] @ X [in, N]} on the weights as stored, the GEMM shape PyTorch's CPU kernels run fastest
     * for a few tokens (a decode step) and as fast for many (docs/BENCHMARKS.md, "Throughput").
     */
    public NDArray forward(NDArray ids, NDArray positions, NDArray bias, KeyValues cache, LoraRows lora) {
        return run(embed(ids), positions, bias, cache, lora, false);
    }

    /**
     * Logits [B, V] of each row's last position only (what generation and a shared prompt's pass need): as
     * {@link #forward}, but the last layer's attention output and MLP and the output head run on B tokens instead of
     * B*T (every layer's keys and values still cover all T): at the 2m preset, about a fifth of a prefill's matmul
     * FLOPs.
     */
    public NDArray lastLogits(NDArray ids, NDArray positions, NDArray bias, KeyValues cache, LoraRows lora) {
        return run(embed(ids), positions, bias, cache, lora, true).squeeze(1);
    }

    /**
     * {@link #forward} from input embeddings [B, T, hidden] (in the model's type) rather than ids: how a
     * vision-language model feeds its image embeddings in place of the image's placeholder tokens.
     */
    public NDArray forwardEmbeddings(
            NDArray embeddings, NDArray positions, NDArray bias, KeyValues cache, LoraRows lora, boolean lastOnly) {
        NDArray logits = run(embeddings, positions, bias, cache, lora, lastOnly);
        return lastOnly ? logits.squeeze(1) : logits;
    }

    /** The token embeddings [B, T, hidden] of ids [B, T] (int64), in the model's type and {@code ids}'s scope. */
    public NDArray embed(NDArray ids) {
        Shape s = ids.getShape();
        NDArray rows = params.get("model.embed_tokens.weight").get(new NDIndex("{}", ids.reshape(s.size())));
        return Scope.of(ids, rows).reshape(s.get(0), s.get(1), config.hiddenSize());
    }

    private NDArray run(
            NDArray embeddings, NDArray positions, NDArray bias, KeyValues cache, LoraRows lora, boolean lastOnly) {
        long b = embeddings.getShape().get(0);
        long t = embeddings.getShape().get(1);
        long n = b * t;
        int nq = config.numHeads();
        int nk = config.numKvHeads();
        int hd = config.headDim();
        // gradients for the base weights flow only through their own (view) tensors: then the parts run separately
        boolean parts = Torch.recordingGradients() && layers.get(0).q().w().hasGradient();
        NDArray tokens = embeddings.reshape(n, config.hiddenSize());
        NDArray h = tokens.transpose().reshape(-1).reshape(config.hiddenSize(), n); // a contiguous [hidden, N]
        // rope(x) = x * cos + rotate_half(x) * sin, with rotate_half a signed gather, applied to the q and k heads
        // together ([nq + nk, hd, B, T]); the q heads also take the attention scale 1/sqrt(hd) here
        NDArray freqs = Scope.of(embeddings, invFreq.mul(family.positions().angles(positions, n)));
        NDArray emb = freqs.concat(freqs, 0).reshape(1, hd, b, t);
        // made in float32 and rounded once to a bf16 model's type (the scale is not exact in bf16)
        NDArray cos = inModelType(emb.cos().mul(headScale));
        NDArray sin = inModelType(emb.sin().mul(rotationSign).mul(headScale));
        // the g query heads of a key-value head are stacked along time in attention(): the mask repeats g times
        NDArray groupBias = config.groups() == 1 ? bias : bias.tile(new long[] {1, 1, config.groups(), 1});
        // Without gradients nothing needs a layer's intermediates once the layer is done: each layer runs in a scope
        // of its own that is closed after it, so a long prefill holds one layer's work at a time instead of all of
        // them until the pass ends (a shared prompt's keys must outlive the pass: not for SharedPrefix)
        boolean layerScopes = !Torch.recordingGradients() && (cache == null || cache instanceof KvCache);
        NDManager outer = h.getManager();
        for (int i = 0; i < layers.size(); i++) {
            DecoderLayer l = layers.get(i);
            NDManager layerScope = layerScopes ? outer.newSubManager() : null;
            if (layerScopes) {
                h.tempAttach(layerScope); // ops on h and what derives from it land in the layer's scope
            }
            NDArray x = rmsNorm(h, l.ln1(), parts);
            NDArray qkv = parts
                    ? NDArrays.concat(
                            new NDList(lin(l.q(), x, lora, b), lin(l.k(), x, lora, b), lin(l.v(), x, lora, b)), 0)
                    : fusedLin(l.qkv(), x, lora, b, l.q(), l.k(), l.v());
            NDList qkAndV = qkv.reshape(nq + 2L * nk, hd, b, t).split(new long[] {nq + nk}, 0);
            NDArray qk = qkAndV.get(0); // [nq + nk, hd, B, T]
            if (l.qkNorm() != null) {
                NDArray rows = parts ? Scope.of(x, NDArrays.stack(new NDList(l.qNorm(), l.kNorm()))) : l.qkNorm();
                qk = headNorm(qk, Scope.of(x, rows.get(qkNormRows)).reshape(nq + nk, hd, 1, 1));
            }
            qk = qk.mul(cos).add(qk.get(rotation).mul(sin));
            NDList qAndK = qk.split(new long[] {nq}, 0);
            NDArray q = qAndK.get(0).transpose(2, 0, 3, 1); // [B, nq, T, hd]
            NDArray kT = qAndK.get(1).transpose(2, 0, 1, 3); // [B, nk, hd, T]
            NDArray v = qkAndV.get(1).transpose(2, 0, 3, 1); // [B, nk, T, hd]
            if (cache != null) {
                KeyValues.Attended kv = cache.append(i, kT, v);
                kT = kv.keysT();
                v = kv.values();
            }
            long queries = t;
            NDArray layerBias = groupBias;
            if (lastOnly && t > 1 && i == layers.size() - 1) {
                // only the last position's output is read: the last layer's keys and values are in (for the
                // cache or a shared prompt's completions), its attention and MLP run for that position alone
                q = q.get(new NDIndex(":, :, {}:, :", t - 1));
                layerBias = bias.get(new NDIndex(":, :, {}:, :", t - 1));
                layerBias = config.groups() == 1 ? layerBias : layerBias.tile(new long[] {1, 1, config.groups(), 1});
                h = h.reshape(config.hiddenSize(), b, t).get(new NDIndex(":, :, {}", t - 1));
                queries = 1;
            }
            NDArray attn = attention(q, kT, v, layerBias, b, queries);
            h = h.add(lin(l.o(), attn, lora, b));
            NDArray y = rmsNorm(h, l.ln2(), parts);
            NDArray gate;
            NDArray up;
            if (parts) {
                gate = lin(l.gate(), y, lora, b);
                up = lin(l.up(), y, lora, b);
            } else {
                NDList gu = fusedLin(l.gateUp(), y, lora, b, l.gate(), l.up()).split(2, 0);
                gate = gu.get(0);
                up = gu.get(1);
            }
            h = h.add(lin(l.down(), Activation.sigmoid(gate).mul(gate).mul(up), lora, b));
            if (layerScopes) {
                h.attach(outer); // the layer's output outlives its scope; the input goes back to where it was
                layerScope.close();
            }
        }
        long outT = lastOnly ? 1 : t; // the last layer has kept only the last position
        h = rmsNorm(h, params.get("model.norm.weight"), true);
        NDArray head =
                config.tieWordEmbeddings() ? params.get("model.embed_tokens.weight") : params.get("lm_head.weight");
        // W @ X as for every linear layer, then one copy into token-major [B, T, V] so that softmax over the
        // vocabulary reads contiguous rows (the copy costs far less than the GEMM shape h^T W^T would); a bf16
        // model's logits are widened in that copy, so sampling and log-softmax read float32
        NDArray logits = Scope.of(h, head.matMul(h)); // [V, N]
        return inFloat32(logits.transpose()).reshape(-1).reshape(b, outT, config.vocabSize());
    }

    /** {@code a} (float32) in the model's type; itself for a float32 model. */
    private NDArray inModelType(NDArray a) {
        return dataType == DataType.FLOAT32 ? a : a.toType(dataType, false);
    }

    /** {@code a} (in the model's type) widened to float32; itself for a float32 model. */
    private NDArray inFloat32(NDArray a) {
        return dataType == DataType.FLOAT32 ? a : a.toType(DataType.FLOAT32, false);
    }

    /**
     * Grouped-query attention without copying keys and values per query head: the g = heads / kvHeads query heads
     * that share a key-value head are stacked along the time axis, [B, kvH, g*T, hd], so one matmul serves them
     * (query head h uses key-value head h / g, as transformers' repeat_kv).
     *
     * @param q  [B, heads, T, hd], already scaled by 1/sqrt(hd)
     * @param kT keys transposed, [B, kvH, hd, S]
     * @return [heads * hd, B * T], feature-major
     */
    private NDArray attention(NDArray q, NDArray kT, NDArray v, NDArray groupBias, long b, long t) {
        long kvh = config.numKvHeads();
        long g = config.groups();
        long hd = config.headDim();
        NDArray qg = q.reshape(b, kvh, g * t, hd);
        // scores plus mask and softmax in float32, then the probabilities in the model's type (transformers' eager
        // attention); both conversions are no-ops for a float32 model
        NDArray probs = inModelType(inFloat32(qg.matMul(kT)).add(groupBias).softmax(-1)); // [B, kvH, g*T, S]
        return probs.matMul(v)
                .reshape(b, config.numHeads(), t, hd)
                .transpose(1, 3, 0, 2)
                .reshape((long) config.numHeads() * hd, b * t);
    }

    private NDArray lin(Linear l, NDArray x, LoraRows lora, long b) {
        NDArray y = l.apply(x);
        if (lora == null) {
            return y;
        }
        NDArray d = lora.delta(l, x, b);
        return d == null ? y : y.add(d);
    }

    /** A fused layer's output, plus each part's adapter contribution in its columns. */
    private NDArray fusedLin(Linear fused, NDArray x, LoraRows lora, long b, Linear... parts) {
        NDArray y = fused.apply(x);
        if (lora == null) {
            return y;
        }
        NDList deltas = new NDList();
        boolean any = false;
        for (Linear part : parts) {
            NDArray d = lora.delta(part, x, b);
            any |= d != null;
            deltas.add(
                    d != null
                            ? d
                            : x.getManager()
                                    .zeros(new Shape(part.out(), x.getShape().get(1)), x.getDataType(), x.getDevice()));
        }
        return any ? y.add(NDArrays.concat(deltas, 0)) : y;
    }

    /**
     * RMSNorm over the features of feature-major {@code x} [hidden, N]: x * rsqrt(mean(x^2) + eps) * w. The weight
     * as a column is a view made once, unless gradients must reach the weight itself ({@code viaParameter}).
     */
    private NDArray rmsNorm(NDArray x, NDArray w, boolean viaParameter) {
        return normalise(x, 0).mul(viaParameter ? Scope.of(x, w.expandDims(-1)) : columns.get(w));
    }

    /** Qwen3's per-head RMSNorm over the head dimension of {@code x} [heads, hd, B, T]; {@code w} is [heads, hd, 1, 1]. */
    private NDArray headNorm(NDArray x, NDArray w) {
        return normalise(x, 1).mul(w);
    }

    /** x / sqrt(mean(x^2) + eps) along {@code axis}; a bf16 {@code x} is normalised in float32 and cast back. */
    private NDArray normalise(NDArray x, int axis) {
        NDArray wide = inFloat32(x);
        NDArray var = wide.square().mean(new int[] {axis}, true);
        return inModelType(wide.div(var.add(eps).sqrt()));
    }

    @Override
    public void close() {
        manager.close();
    }
}

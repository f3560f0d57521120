package org.pettingllms.torch.family.qwen25vl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.pettingllms.torch.model.Scope;

/**
 * Qwen2.5-VL's vision transformer ({@code Qwen2_5_VisionTransformerPretrainedModel}): patch embedding (a Conv3d whose
 * stride is its kernel, so one matmul over the 1,176 values of a patch), 2-D rotary embeddings (the first half of
 * each head's frequencies turn with the patch row, the second with its column), blocks of RMSNorm, attention
 * (within windows of {@code window / patch} patches a side, or over the whole image in
 * {@code fullAttentionBlocks}) and a gated MLP with biases, then the merger: RMSNorm, each 2 x 2 block of patches
 * concatenated, Linear, GELU, Linear, giving one token of the text model's width per block.
 *
 * <p>Windows: the patches are reordered so that each window's blocks are consecutive ({@link #windows}), attention
 * runs per segment of that order, and the merged tokens are put back in the image's row-major block order at the
 * end, as transformers does. Activations are token-major [N, features] here; a batch of images runs as one
 * sequence of patches whose segments never attend across images.
 */
final class VisionTower {
    private final Qwen25VlConfig.Vision cfg;
    private final int queryChunk;
    private final Map<String, NDArray> params;
    private final float[] invFreq;
    private final NDArray eps;

    VisionTower(Qwen25VlConfig.Vision cfg, Map<String, NDArray> params, NDManager manager) {
        this(cfg, params, manager, 1024);
    }

    /** @param queryChunk query rows per attention matmul (bounds the scores' memory; results are the same) */
    VisionTower(Qwen25VlConfig.Vision cfg, Map<String, NDArray> params, NDManager manager, int queryChunk) {
        this.queryChunk = queryChunk;
        this.cfg = cfg;
        this.params = params;
        need("visual.patch_embed.proj.weight");
        for (int i = 0; i < cfg.depth(); i++) {
            String p = "visual.blocks." + i + ".";
            for (String s : List.of(
                    "norm1.weight",
                    "norm2.weight",
                    "attn.qkv.weight",
                    "attn.qkv.bias",
                    "attn.proj.weight",
                    "attn.proj.bias",
                    "mlp.gate_proj.weight",
                    "mlp.gate_proj.bias",
                    "mlp.up_proj.weight",
                    "mlp.up_proj.bias",
                    "mlp.down_proj.weight",
                    "mlp.down_proj.bias")) {
                need(p + s);
            }
        }
        for (String s : List.of("ln_q.weight", "mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias")) {
            need("visual.merger." + s);
        }
        // Qwen2_5_VisionRotaryEmbedding(head_dim / 2): inv_freq_i = 1 / theta^(2i / (hd / 2)), in float32 as torch
        int dim = cfg.headDim() / 2;
        this.invFreq = new float[dim / 2];
        for (int i = 0; i < invFreq.length; i++) {
            float exponent = (float) (2 * i) / dim;
            invFreq[i] = 1f / (float) Math.pow(10000.0, exponent);
        }
        this.eps = manager.create(1e-6f);
    }

    private NDArray need(String name) {
        NDArray a = params.get(name);
        if (a == null) {
            throw new IllegalArgumentException("model weights lack '" + name + "' (the Qwen2.5-VL vision tower)");
        }
        return a;
    }

    /**
     * The merged image tokens [sum of t*h*w/4, outHidden] for the patches of one or more images concatenated
     * ({@code pixels} [sum of t*h*w, 1176] in the weights' type), in the images' order.
     *
     * @param grids {t, h, w} per image
     */
    NDArray forward(NDArray pixels, List<int[]> grids) {
        int unit = cfg.merge() * cfg.merge();
        long n = pixels.getShape().get(0);
        Windows w = windows(grids);
        // Conv3d, stride = kernel: one dot per patch (the weight reshaped here, inside the pass, so that a tower that
        // trains gets its gradient)
        NDArray patchWeight = params.get("visual.patch_embed.proj.weight").reshape(cfg.hidden(), cfg.patchValues());
        NDArray h = pixels.matMul(Scope.of(pixels, patchWeight.transpose()));
        h = h.reshape(n / unit, unit, cfg.hidden())
                .get(new NDIndex("{}", h.getManager().create(w.order())));
        h = h.reshape(n, cfg.hidden());
        NDArray[] rope = rotary(grids, w.order(), h.getManager(), h.getDataType());
        for (int i = 0; i < cfg.depth(); i++) {
            String p = "visual.blocks." + i + ".";
            int[] bounds = cfg.fullAttentionBlocks().contains(i) ? w.images() : w.windows();
            h = h.add(attention(p, rmsNorm(h, params.get(p + "norm1.weight")), rope, bounds));
            NDArray x = rmsNorm(h, params.get(p + "norm2.weight"));
            NDArray gate = linear(x, p + "mlp.gate_proj");
            NDArray up = linear(x, p + "mlp.up_proj");
            h = h.add(linear(Activation.sigmoid(gate).mul(gate).mul(up), p + "mlp.down_proj"));
        }
        NDArray merged =
                rmsNorm(h, params.get("visual.merger.ln_q.weight")).reshape(n / unit, (long) unit * cfg.hidden());
        merged = linear(Activation.gelu(linear(merged, "visual.merger.mlp.0")), "visual.merger.mlp.2");
        int[] back = new int[w.order().length];
        for (int i = 0; i < back.length; i++) {
            back[w.order()[i]] = i;
        }
        return merged.get(new NDIndex("{}", merged.getManager().create(back)));
    }

    private NDArray linear(NDArray x, String name) {
        return x.matMul(Scope.of(x, params.get(name + ".weight").transpose())).add(params.get(name + ".bias"));
    }

    /** Qwen2RMSNorm: in float32, x / sqrt(mean(x^2) + eps), cast back to x's type, then times the weight. */
    private NDArray rmsNorm(NDArray x, NDArray w) {
        NDArray wide = x.toType(DataType.FLOAT32, false);
        NDArray var = wide.square().mean(new int[] {-1}, true);
        return wide.div(var.add(eps).sqrt()).toType(x.getDataType(), false).mul(w);
    }

    /**
     * Bidirectional attention of each segment [bounds[i], bounds[i+1]) with itself; rotary in float32 as
     * {@code apply_rotary_pos_emb_vision}, softmax in float32. Segments run in batches: a batch's segments are
     * gathered into one [segments, heads, longest, hd] block whose shorter segments' extra keys are masked out, so a
     * batch costs a few operations however many windows and images it holds (a step's boards have hundreds). A
     * segment too long to batch (a large image's full-attention block) runs alone in query chunks.
     */
    private NDArray attention(String p, NDArray x, NDArray[] rope, int[] bounds) {
        long n = x.getShape().get(0);
        int heads = cfg.heads();
        int hd = cfg.headDim();
        NDArray qkv = linear(x, p + "attn.qkv").reshape(n, 3, heads, hd);
        NDArray q = rotate(qkv.get(":, 0"), rope); // [N, heads, hd]
        NDArray k = rotate(qkv.get(":, 1"), rope);
        NDArray v = qkv.get(":, 2");
        double scale = 1.0 / Math.sqrt(hd);
        long budget = (long) queryChunk * queryChunk; // score elements per head in one batch
        NDList parts = new NDList(); // [rows, heads * hd] per batch or chunk, in segment order
        int s = 0;
        while (s + 1 < bounds.length) {
            int first = s;
            int longest = 0;
            while (s + 1 < bounds.length) {
                int len = bounds[s + 1] - bounds[s];
                int wider = Math.max(longest, len);
                if (s > first && (long) (s - first + 1) * wider * wider > budget) {
                    break;
                }
                longest = wider;
                s++;
            }
            if (s - first == 1 && (long) longest * longest > budget) {
                parts.add(chunked(q, k, v, bounds[first], bounds[s], scale, x.getDataType()));
            } else if (longest > 0) {
                parts.add(batched(q, k, v, bounds, first, s, longest, scale, x.getDataType()));
            }
        }
        NDArray out = parts.size() == 1 ? parts.get(0) : NDArrays.concat(parts, 0);
        return linear(out, p + "attn.proj");
    }

    /** Segments [first, last) of {@code bounds} padded to {@code longest}, their padding keys masked. */
    private static NDArray batched(
            NDArray q,
            NDArray k,
            NDArray v,
            int[] bounds,
            int first,
            int last,
            int longest,
            double scale,
            DataType type) {
        int g = last - first;
        long heads = q.getShape().get(1);
        long hd = q.getShape().get(2);
        long[] gather = new long[g * longest];
        float[] mask = new float[g * longest];
        int valid = 0;
        for (int i = 0; i < g; i++) {
            int len = bounds[first + i + 1] - bounds[first + i];
            valid += len;
            for (int j = 0; j < longest; j++) {
                gather[i * longest + j] = j < len ? bounds[first + i] + j : 0; // padding: any row, masked
                mask[i * longest + j] = j < len ? 0f : Float.NEGATIVE_INFINITY;
            }
        }
        long[] keep = new long[valid];
        for (int i = 0, at = 0; i < g; i++) {
            int len = bounds[first + i + 1] - bounds[first + i];
            for (int j = 0; j < len; j++) {
                keep[at++] = (long) i * longest + j;
            }
        }
        NDManager m = q.getManager();
        NDIndex rows = new NDIndex("{}", m.create(gather));
        Shape blocked = new Shape(g, longest, heads, hd);
        NDArray qs = q.get(rows).reshape(blocked).transpose(0, 2, 1, 3); // [g, heads, longest, hd]
        NDArray kT = k.get(rows).reshape(blocked).transpose(0, 2, 3, 1); // [g, heads, hd, longest]
        NDArray vs = v.get(rows).reshape(blocked).transpose(0, 2, 1, 3);
        NDArray scores = qs.matMul(kT).mul(scale).toType(DataType.FLOAT32, false);
        NDArray probs = scores.add(m.create(mask, new Shape(g, 1, 1, longest)))
                .softmax(-1)
                .toType(type, false);
        NDArray out = probs.matMul(vs).transpose(0, 2, 1, 3).reshape((long) g * longest, heads * hd);
        return out.get(new NDIndex("{}", m.create(keep)));
    }

    /**
     * One long segment [from, to), its queries in chunks of {@code queryChunk} rows: a large image's full-attention
     * block would otherwise hold heads x N x N scores (a photo at Qwen2.5-VL's 12.8M-pixel limit: 65k patches); each
     * chunk's rows are computed exactly as whole.
     */
    private NDArray chunked(NDArray q, NDArray k, NDArray v, int from, int to, double scale, DataType type) {
        long heads = q.getShape().get(1);
        long hd = q.getShape().get(2);
        NDIndex seg = new NDIndex("{}:{}", from, to);
        NDArray kT = k.get(seg).transpose(1, 2, 0); // [heads, hd, len]
        NDArray vs = v.get(seg).transpose(1, 0, 2); // [heads, len, hd]
        NDList parts = new NDList();
        for (int at = from; at < to; at += queryChunk) {
            int end = Math.min(to, at + queryChunk);
            NDArray scores = q.get(new NDIndex("{}:{}", at, end))
                    .transpose(1, 0, 2)
                    .matMul(kT)
                    .mul(scale);
            NDArray probs = scores.toType(DataType.FLOAT32, false).softmax(-1).toType(type, false);
            parts.add(probs.matMul(vs).transpose(1, 0, 2).reshape(end - at, heads * hd));
        }
        return parts.size() == 1 ? parts.get(0) : NDArrays.concat(parts, 0);
    }

    /** x [N, heads, hd] rotated: x * cos + rotate_half(x) * sin, in float32, back in x's type. */
    private static NDArray rotate(NDArray x, NDArray[] rope) {
        NDArray f = x.toType(DataType.FLOAT32, false);
        long half = f.getShape().get(2) / 2;
        NDArray rotated = NDArrays.concat(new NDList(f.get(":, :, {}:", half).neg(), f.get(":, :, :{}", half)), 2);
        return f.mul(rope[0]).add(rotated.mul(rope[1])).toType(x.getDataType(), false);
    }

    /**
     * cos and sin [N, 1, hd] of each patch in window order: frequency i of the first quarter turns with the row, of
     * the second with the column, and the two halves repeat them ({@code cat(freqs, freqs)}).
     */
    private NDArray[] rotary(List<int[]> grids, int[] order, NDManager m, DataType type) {
        int hd = cfg.headDim();
        int quarter = invFreq.length;
        int unit = cfg.merge() * cfg.merge();
        List<int[]> rowCol = new ArrayList<>(); // (row, column) of each patch in the processor's order
        for (int[] g : grids) {
            for (int t = 0; t < g[0]; t++) {
                for (int bh = 0; bh < g[1] / cfg.merge(); bh++) {
                    for (int bw = 0; bw < g[2] / cfg.merge(); bw++) {
                        for (int mh = 0; mh < cfg.merge(); mh++) {
                            for (int mw = 0; mw < cfg.merge(); mw++) {
                                rowCol.add(new int[] {bh * cfg.merge() + mh, bw * cfg.merge() + mw});
                            }
                        }
                    }
                }
            }
        }
        int n = rowCol.size();
        float[] cos = new float[n * hd];
        float[] sin = new float[n * hd];
        int r = 0;
        for (int block : order) {
            for (int j = 0; j < unit; j++, r++) {
                int[] rc = rowCol.get(block * unit + j);
                for (int i = 0; i < hd; i++) {
                    int f = i % (2 * quarter);
                    float angle = (f < quarter ? rc[0] : rc[1]) * invFreq[f % quarter];
                    cos[r * hd + i] = (float) Math.cos(angle);
                    sin[r * hd + i] = (float) Math.sin(angle);
                }
            }
        }
        return new NDArray[] {m.create(cos, new Shape(n, 1, hd)), m.create(sin, new Shape(n, 1, hd))};
    }

    /**
     * transformers' {@code get_window_index}: the merged blocks of each image grouped by window (windows of
     * {@code window / patch / merge} blocks a side, row-major; the last row and column of windows may be partial),
     * as a permutation of block indices, with each window's and each frame's patch bounds in that order.
     *
     * @param order   block indices in window order
     * @param windows patch offsets where windows start and end (for the windowed blocks)
     * @param images  patch offsets where each frame of each image starts and ends (for the full-attention blocks)
     */
    record Windows(int[] order, int[] windows, int[] images) {}

    Windows windows(List<int[]> grids) {
        int side = cfg.window() / cfg.merge() / cfg.patch();
        int unit = cfg.merge() * cfg.merge();
        List<Integer> order = new ArrayList<>();
        List<Integer> windowBounds = new ArrayList<>(List.of(0));
        List<Integer> imageBounds = new ArrayList<>(List.of(0));
        int base = 0;
        for (int[] g : grids) {
            int gh = g[1] / cfg.merge();
            int gw = g[2] / cfg.merge();
            for (int t = 0; t < g[0]; t++) {
                for (int wy = 0; wy < gh; wy += side) {
                    for (int wx = 0; wx < gw; wx += side) {
                        for (int y = wy; y < Math.min(wy + side, gh); y++) {
                            for (int x = wx; x < Math.min(wx + side, gw); x++) {
                                order.add(base + (t * gh + y) * gw + x);
                            }
                        }
                        windowBounds.add(order.size() * unit);
                    }
                }
                imageBounds.add(imageBounds.get(imageBounds.size() - 1) + gh * gw * unit);
            }
            base += g[0] * gh * gw;
        }
        return new Windows(
                order.stream().mapToInt(Integer::intValue).toArray(),
                windowBounds.stream().mapToInt(Integer::intValue).toArray(),
                imageBounds.stream().mapToInt(Integer::intValue).toArray());
    }
}

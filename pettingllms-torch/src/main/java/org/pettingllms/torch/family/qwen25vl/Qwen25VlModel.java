package org.pettingllms.torch.family.qwen25vl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.pettingllms.torch.family.LanguageModel;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.KvCache;

/**
 * Qwen2.5-VL: the vision tower's merged tokens take the places of the prompt's {@code <|image_pad|>} tokens in the
 * text decoder's input embeddings, and the decoder's rotary angles follow the three M-RoPE axes ({@link RopeIndex}).
 * The decoder is a {@link DecoderModel}, so adapters, training and text-only sampling work on it as on any text
 * model (a text-only prompt's three position axes are equal, which is one-dimensional RoPE).
 */
public final class Qwen25VlModel implements LanguageModel {
    private final Qwen25VlConfig config;
    private final ImageProcessor processor;
    private final DecoderModel decoder;
    private final VisionTower tower;
    private final Map<String, NDArray> visionParams;

    Qwen25VlModel(
            Qwen25VlConfig config,
            ImageProcessor processor,
            DecoderModel decoder,
            VisionTower tower,
            Map<String, NDArray> visionParams) {
        this.config = config;
        this.processor = processor;
        this.decoder = decoder;
        this.tower = tower;
        this.visionParams = visionParams;
    }

    @Override
    public DecoderModel decoder() {
        return decoder;
    }

    @Override
    public boolean seesImages() {
        return true;
    }

    public Qwen25VlConfig config() {
        return config;
    }

    public ImageProcessor processor() {
        return processor;
    }

    /** The vision tower's weights by Hugging Face name ({@code visual.*}). */
    public Map<String, NDArray> visionParameters() {
        return visionParams;
    }

    /**
     * A prompt whose images each appear as one {@code <|image_pad|>} (as a chat template writes them) with each
     * expanded to the image's token count, as the Qwen2.5-VL processor does.
     */
    public int[] expandPlaceholders(int[] ids, List<ImageProcessor.Patches> images) {
        int unit = config.vision().merge() * config.vision().merge();
        int extra = 0;
        for (ImageProcessor.Patches p : images) {
            extra += p.rows() / unit - 1;
        }
        int[] out = new int[ids.length + extra];
        int o = 0;
        int image = 0;
        for (int id : ids) {
            if (id != config.imageTokenId()) {
                out[o++] = id;
                continue;
            }
            if (image >= images.size()) {
                throw new IllegalArgumentException(
                        "the prompt has more image placeholders than the " + images.size() + " images given");
            }
            int n = images.get(image++).rows() / unit;
            Arrays.fill(out, o, o + n, config.imageTokenId());
            o += n;
        }
        if (image != images.size()) {
            throw new IllegalArgumentException(
                    images.size() + " images were given, the prompt has placeholders for " + image);
        }
        return out;
    }

    /** The merged image tokens [sum of tokens, hidden] of {@code images}, in their order, in {@code scope}. */
    public NDArray imageEmbeddings(List<ImageProcessor.Patches> images, NDManager scope) {
        int row = config.vision().patchValues();
        int rows = images.stream().mapToInt(ImageProcessor.Patches::rows).sum();
        float[] all = new float[rows * row];
        int at = 0;
        List<int[]> grids = new ArrayList<>();
        for (ImageProcessor.Patches p : images) {
            System.arraycopy(p.values(), 0, all, at, p.values().length);
            at += p.values().length;
            grids.add(new int[] {p.gridT(), p.gridH(), p.gridW()});
        }
        NDArray pixels = scope.create(all, new Shape(rows, row));
        if (decoder.dataType() != DataType.FLOAT32) {
            pixels = pixels.toType(decoder.dataType(), false);
        }
        return tower.forward(pixels, grids);
    }

    /** The M-RoPE positions of an expanded prompt. */
    public RopeIndex.Positions positions(int[] tokens, List<ImageProcessor.Patches> images) {
        List<int[]> grids = new ArrayList<>();
        for (ImageProcessor.Patches p : images) {
            grids.add(new int[] {p.gridT(), p.gridH(), p.gridW()});
        }
        return RopeIndex.of(
                tokens, config.imageTokenId(), grids, config.vision().merge());
    }

    /**
     * Input embeddings [1, T, hidden] of an expanded prompt: token embeddings, with the image embeddings (in order)
     * at the placeholders. A gather over [token rows; image rows], so gradients reach both.
     */
    public NDArray inputEmbeddings(int[] tokens, NDArray imageEmbeddings, NDManager scope) {
        NDArray ids = scope.create(Arrays.stream(tokens).asLongStream().toArray(), new Shape(1, tokens.length));
        NDArray text = decoder.embed(ids).reshape(tokens.length, config.text().hiddenSize());
        if (imageEmbeddings == null) {
            return text.reshape(1, tokens.length, config.text().hiddenSize());
        }
        long[] pick = new long[tokens.length];
        int image = 0;
        for (int i = 0; i < tokens.length; i++) {
            pick[i] = tokens[i] == config.imageTokenId() ? tokens.length + image++ : i;
        }
        if (image != imageEmbeddings.getShape().get(0)) {
            throw new IllegalArgumentException("the prompt has " + image + " image tokens, the images give "
                    + imageEmbeddings.getShape().get(0));
        }
        NDArray rows = NDArrays.concat(new NDList(text, imageEmbeddings.toType(text.getDataType(), false)), 0);
        return rows.get(new NDIndex("{}", scope.create(pick)))
                .reshape(1, tokens.length, config.text().hiddenSize());
    }

    /** Logits [1, T, V] of an expanded prompt and its images (one pass, no cache). */
    public NDArray logits(int[] tokens, List<ImageProcessor.Patches> images, NDManager scope) {
        NDArray embeds = inputEmbeddings(tokens, images.isEmpty() ? null : imageEmbeddings(images, scope), scope);
        RopeIndex.Positions p = positions(tokens, images);
        boolean[][] valid = {new boolean[tokens.length]};
        Arrays.fill(valid[0], true);
        return decoder.forwardEmbeddings(
                embeds, positionArray(p, scope), Inputs.causalBias(scope, valid, tokens.length, 0), null, null, false);
    }

    /**
     * The greedy continuation of an expanded prompt: a prefill with the images, then one token at a time from the
     * KV cache, each at its cache position plus the prompt's rope delta on all three axes.
     */
    public int[] greedy(int[] tokens, List<ImageProcessor.Patches> images, int maxNew) {
        int[] out = new int[maxNew];
        try (NDManager scope = decoder.manager().newSubManager()) {
            KvCache cache = new KvCache(scope, config.text().numLayers(), tokens.length + maxNew);
            NDArray embeds = inputEmbeddings(tokens, images.isEmpty() ? null : imageEmbeddings(images, scope), scope);
            RopeIndex.Positions p = positions(tokens, images);
            boolean[][] valid = {new boolean[tokens.length + maxNew]};
            Arrays.fill(valid[0], true);
            NDArray last = decoder.forwardEmbeddings(
                    embeds,
                    positionArray(p, scope),
                    Inputs.causalBias(scope, valid, tokens.length, 0),
                    cache,
                    null,
                    true);
            for (int i = 0; i < maxNew; i++) {
                out[i] = (int) last.argMax(-1).toLongArray()[0];
                if (i + 1 == maxNew) {
                    break;
                }
                try (NDManager step = scope.newSubManager()) {
                    long at = tokens.length + i + p.delta();
                    NDArray id = step.create(new long[] {out[i]}, new Shape(1, 1));
                    NDArray pos = step.create(new long[] {at}, new Shape(1, 1));
                    NDArray next = decoder.lastLogits(
                            id, pos, Inputs.causalBias(step, valid, 1, tokens.length + i), cache, null);
                    next.attach(scope);
                    last = next;
                }
            }
        }
        return out;
    }

    private static NDArray positionArray(RopeIndex.Positions p, NDManager scope) {
        int t = p.ids()[0].length;
        long[] flat = new long[3 * t];
        for (int a = 0; a < 3; a++) {
            System.arraycopy(p.ids()[a], 0, flat, a * t, t);
        }
        return scope.create(flat, new Shape(3, 1, t));
    }

    /** Closes the decoder, whose memory scope holds the vision tower's too. */
    @Override
    public void close() {
        decoder.close();
    }
}

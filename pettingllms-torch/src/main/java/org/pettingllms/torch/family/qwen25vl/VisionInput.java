package org.pettingllms.torch.family.qwen25vl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.torch.image.RgbImage;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.ModelWriter;

/**
 * Qwen2.5-VL's input in front of its text decoder and its writer: the vision tower's merged tokens take the places of
 * the prompt's {@code <|image_pad|>} tokens in the decoder's input embeddings, at M-RoPE positions
 * ({@link RopeIndex}); the whole model is saved as transformers holds it. Given to the decoder when the family builds
 * it ({@code FamilyParts}), so sampling, training and checkpoints reach it through the decoder.
 */
final class VisionInput implements InputEncoder, ModelWriter {
    private final Qwen25VlConfig config;
    private final ImageProcessor processor;
    /** The decoder's type, which the tower's input takes. */
    private final DataType dataType;

    private final VisionTower tower;
    private final Map<String, NDArray> visionParams;
    /**
     * Recently seen images' patches, least recently used first: the K candidates of a group and the learner's pass
     * reuse them. Bounded by their values ({@link #CACHED_VALUES}, 256 MB): a large photo's patches take hundreds of
     * megabytes, a board's a few.
     */
    private final LinkedHashMap<Image, ImageProcessor.Patches> prepared = new LinkedHashMap<>(16, 0.75f, true);

    private static final long CACHED_VALUES = 64L << 20;
    private long cachedValues;

    VisionInput(
            Qwen25VlConfig config,
            ImageProcessor processor,
            DataType dataType,
            VisionTower tower,
            Map<String, NDArray> visionParams) {
        this.config = config;
        this.processor = processor;
        this.dataType = dataType;
        this.tower = tower;
        this.visionParams = visionParams;
    }

    ImageProcessor processor() {
        return processor;
    }

    @Override
    public Map<String, NDArray> parameters() {
        return visionParams;
    }

    @Override
    public InputEncoder copy(NDManager manager) {
        Map<String, NDArray> copy = new LinkedHashMap<>();
        visionParams.forEach((k, a) -> {
            NDArray d = a.duplicate();
            d.attach(manager);
            copy.put(k, d);
        });
        return new VisionInput(config, processor, dataType, new VisionTower(config.vision(), copy, manager), copy);
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
        if (dataType != DataType.FLOAT32) {
            pixels = pixels.toType(dataType, false);
        }
        return tower.forward(pixels, grids);
    }

    /** The M-RoPE positions of an expanded prompt. */
    public RopeIndex.Positions positions(int[] tokens, List<ImageProcessor.Patches> images) {
        return RopeIndex.of(
                tokens,
                tokens.length,
                config.imageTokenId(),
                grids(images),
                config.vision().merge());
    }

    private static List<int[]> grids(List<ImageProcessor.Patches> images) {
        List<int[]> grids = new ArrayList<>();
        for (ImageProcessor.Patches p : images) {
            grids.add(new int[] {p.gridT(), p.gridH(), p.gridW()});
        }
        return grids;
    }

    /** An image's patches: decoded and processed once, then kept while it stays among the recent ones. */
    public ImageProcessor.Patches patches(Image image) {
        synchronized (prepared) {
            ImageProcessor.Patches p = prepared.get(image);
            if (p != null) {
                return p;
            }
        }
        ImageProcessor.Patches p = processor.patches(RgbImage.decode(image.bytes(), "image " + image));
        synchronized (prepared) {
            if (prepared.put(image, p) == null) {
                cachedValues += p.values().length;
            }
            var eldest = prepared.entrySet().iterator();
            while (cachedValues > CACHED_VALUES && prepared.size() > 1) {
                cachedValues -= eldest.next().getValue().values().length;
                eldest.remove();
            }
        }
        return p;
    }

    @Override
    public int[] expand(int[] ids, List<Image> images, String what) {
        try {
            return expandPlaceholders(ids, images.stream().map(this::patches).toList());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void check(int[] ids, List<Image> images, String what) {
        try {
            RopeIndex.of(
                    ids,
                    ids.length,
                    config.imageTokenId(),
                    grids(images.stream().map(this::patches).toList()),
                    config.vision().merge());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public int[] imageTokenIds() {
        return new int[] {config.imageTokenId(), config.visionStartTokenId(), config.visionEndTokenId()};
    }

    @Override
    public InputEncoder.Encoded encode(
            DecoderModel dec,
            Inputs.Batch in,
            List<int[]> rows,
            int[] promptLengths,
            List<List<Image>> images,
            NDManager scope) {
        List<List<ImageProcessor.Patches>> patches = new ArrayList<>();
        for (List<Image> row : images) {
            patches.add(row.stream().map(this::patches).toList());
        }
        return encodePatches(dec, in, rows, promptLengths, patches, scope);
    }

    /**
     * Embeddings with each row's image tokens at its placeholders, M-RoPE positions per row (padding at 0) and the
     * rows' rope deltas. The tower runs once per distinct image of the batch (the K candidates of a group, both roles
     * of a turn and the learner's rows show the same board), and each row takes its images' tokens from there.
     */
    InputEncoder.Encoded encodePatches(
            DecoderModel dec,
            Inputs.Batch in,
            List<int[]> rows,
            int[] promptLengths,
            List<List<ImageProcessor.Patches>> images,
            NDManager scope) {
        int b = rows.size();
        int w = in.width();
        int hidden = config.text().hiddenSize();
        int unit = config.vision().merge() * config.vision().merge();
        long[] pos = new long[3 * b * w];
        long[] deltas = new long[b];
        long[] pick = new long[b * w];
        // the batch's distinct images (a cached image is one Patches instance) and where each one's tokens start
        Map<ImageProcessor.Patches, Integer> first = new IdentityHashMap<>();
        List<ImageProcessor.Patches> distinct = new ArrayList<>();
        int visionRows = 0;
        for (int r = 0; r < b; r++) {
            int[] row = rows.get(r);
            int pad = w - row.length;
            RopeIndex.Positions p = RopeIndex.of(
                    row,
                    promptLengths[r],
                    config.imageTokenId(),
                    grids(images.get(r)),
                    config.vision().merge());
            deltas[r] = p.delta();
            List<Integer> mine = new ArrayList<>(); // this row's image tokens' rows among the tower's output
            for (ImageProcessor.Patches image : images.get(r)) {
                Integer at = first.get(image);
                if (at == null) {
                    at = visionRows;
                    first.put(image, at);
                    distinct.add(image);
                    visionRows += image.rows() / unit;
                }
                for (int t = 0; t < image.rows() / unit; t++) {
                    mine.add(at + t);
                }
            }
            int next = 0;
            for (int s = 0; s < w; s++) {
                int at = r * w + s;
                pick[at] = at;
                if (s < pad) {
                    continue; // padding: position 0, its own (masked) embedding
                }
                for (int a = 0; a < 3; a++) {
                    pos[a * b * w + at] = p.ids()[a][s - pad];
                }
                if (s - pad < promptLengths[r] && row[s - pad] == config.imageTokenId()) {
                    if (next == mine.size()) {
                        throw new IllegalArgumentException(
                                "row " + r + " has more image tokens than the " + mine.size() + " its images give");
                    }
                    pick[at] = (long) b * w + mine.get(next++);
                }
            }
            if (next != mine.size()) {
                throw new IllegalArgumentException(
                        "row " + r + " has " + next + " image tokens, its images give " + mine.size());
            }
        }
        NDArray text = dec.embed(in.ids()).reshape((long) b * w, hidden);
        NDArray embeddings = text;
        if (!distinct.isEmpty()) {
            NDArray vision = imageEmbeddings(distinct, scope);
            embeddings = NDArrays.concat(new NDList(text, vision.toType(text.getDataType(), false)), 0)
                    .get(new NDIndex("{}", scope.create(pick)));
        }
        return new InputEncoder.Encoded(
                embeddings.reshape(b, w, hidden), scope.create(pos, new Shape(3, b, w)), deltas);
    }

    /**
     * The model as transformers 4.x and 5.x checkpoints hold it: {@code model.safetensors} with the decoder's
     * weights ({@code model.*}, {@code lm_head}) and the tower's ({@code visual.*}), the config as read, and the
     * processor's settings ({@code preprocessor_config.json}).
     */
    @Override
    public void write(DecoderModel dec, Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Tensor> all = new LinkedHashMap<>(dec.stateDict());
        visionParams.forEach((k, v) -> all.put(k, new Tensor(v.getShape().getShape(), DecoderModel.hostFloats(v))));
        SafeTensors.write(dir.resolve("model.safetensors"), all);
        AtomicFiles.writeString(dir.resolve("config.json"), config.json().toPrettyString());
        AtomicFiles.writeString(
                dir.resolve("preprocessor_config.json"), processor.toJson().toPrettyString());
    }
}

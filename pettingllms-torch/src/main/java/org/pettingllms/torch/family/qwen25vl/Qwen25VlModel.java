package org.pettingllms.torch.family.qwen25vl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Image;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.InputEncoder;
import org.pettingllms.torch.model.Inputs;
import org.pettingllms.torch.model.KvCache;
import org.pettingllms.torch.model.LanguageModel;

/**
 * Qwen2.5-VL: a {@link DecoderModel} (a Qwen2 decoder whose rotary angles follow the three M-RoPE axes,
 * {@link MRope}) with the vision tower's input in front of it ({@link VisionInput}). Adapters, training and
 * text-only sampling work on the decoder as on any text model (a text-only prompt's three position axes are equal,
 * which is one-dimensional RoPE); this class adds what a caller of the whole model asks: its settings, an image's
 * patches, a prompt's logits and greedy continuation.
 */
public final class Qwen25VlModel implements LanguageModel {
    private final Qwen25VlConfig config;
    private final DecoderModel decoder;
    private final VisionInput input;

    Qwen25VlModel(Qwen25VlConfig config, DecoderModel decoder, VisionInput input) {
        this.config = config;
        this.decoder = decoder;
        this.input = input;
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
        return input.processor();
    }

    /** The vision tower's weights by Hugging Face name ({@code visual.*}). */
    public Map<String, NDArray> visionParameters() {
        return input.parameters();
    }

    /** See {@link VisionInput#expandPlaceholders}. */
    public int[] expandPlaceholders(int[] ids, List<ImageProcessor.Patches> images) {
        return input.expandPlaceholders(ids, images);
    }

    /** See {@link VisionInput#imageEmbeddings}. */
    public NDArray imageEmbeddings(List<ImageProcessor.Patches> images, NDManager scope) {
        return input.imageEmbeddings(images, scope);
    }

    /** See {@link VisionInput#positions}. */
    public RopeIndex.Positions positions(int[] tokens, List<ImageProcessor.Patches> images) {
        return input.positions(tokens, images);
    }

    /** See {@link VisionInput#patches}. */
    public ImageProcessor.Patches patches(Image image) {
        return input.patches(image);
    }

    /** Logits [1, T, V] of an expanded prompt and its images (one pass, no cache). */
    public NDArray logits(int[] tokens, List<ImageProcessor.Patches> images, NDManager scope) {
        Inputs.Batch in = Inputs.leftPadded(scope, List.of(tokens), 0);
        InputEncoder.Encoded e =
                input.encodePatches(decoder, in, List.of(tokens), new int[] {tokens.length}, List.of(images), scope);
        return decoder.forwardEmbeddings(e.embeddings(), e.positions(), in.bias(), null, null, false);
    }

    /**
     * The greedy continuation of an expanded prompt: a prefill with the images, then one token at a time from the
     * KV cache, each at its cache position plus the prompt's rope delta on all three axes.
     */
    public int[] greedy(int[] tokens, List<ImageProcessor.Patches> images, int maxNew) {
        int[] out = new int[maxNew];
        try (NDManager scope = decoder.manager().newSubManager()) {
            KvCache cache = new KvCache(scope, config.text().numLayers(), tokens.length + maxNew);
            Inputs.Batch in = Inputs.leftPadded(scope, List.of(tokens), 0);
            InputEncoder.Encoded e = input.encodePatches(
                    decoder, in, List.of(tokens), new int[] {tokens.length}, List.of(images), scope);
            NDArray last = decoder.forwardEmbeddings(e.embeddings(), e.positions(), in.bias(), cache, null, true);
            boolean[][] valid = {new boolean[tokens.length + maxNew]};
            Arrays.fill(valid[0], true);
            for (int i = 0; i < maxNew; i++) {
                out[i] = (int) last.argMax(-1).toLongArray()[0];
                if (i + 1 == maxNew) {
                    break;
                }
                try (NDManager step = scope.newSubManager()) {
                    NDArray id = step.create(new long[] {out[i]}, new Shape(1, 1));
                    NDArray pos = step.create(new long[] {tokens.length + i + e.deltas()[0]}, new Shape(1, 1));
                    NDArray next = decoder.lastLogits(
                            id, pos, Inputs.causalBias(step, valid, 1, tokens.length + i), cache, null);
                    next.attach(scope);
                    last = next;
                }
            }
        }
        return out;
    }

    /** Closes the decoder, whose memory scope holds the vision tower's too. */
    @Override
    public void close() {
        decoder.close();
    }
}

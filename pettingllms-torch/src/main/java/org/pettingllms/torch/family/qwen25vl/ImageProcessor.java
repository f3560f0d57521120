package org.pettingllms.torch.family.qwen25vl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.pettingllms.torch.image.PillowBicubic;
import org.pettingllms.torch.image.RgbImage;

/**
 * Qwen2-VL's image processor ({@code image_processing_qwen2_vl.py}, what Qwen2.5-VL checkpoints name in their
 * {@code preprocessor_config.json}): resize to sides that are multiples of {@code patch * merge} (28) keeping the
 * pixel count within [{@code minPixels}, {@code maxPixels}] ({@link #smartResize}), with Pillow's bicubic filter;
 * scale to [0, 1] and normalise per channel (CLIP's mean and std); repeat the image to {@code temporalPatch} frames;
 * cut into patches of {@code channels x temporalPatch x patch x patch} values (1,176 for 3 x 2 x 14 x 14), the four
 * patches of each 2 x 2 merge block consecutive, so the vision tower's merger can fold them into one token.
 */
public record ImageProcessor(
        int patch, int temporalPatch, int merge, long minPixels, long maxPixels, float[] mean, float[] std) {
    /** OpenAI CLIP's channel means and standard deviations, Qwen2-VL's defaults. */
    static final float[] CLIP_MEAN = {0.48145466f, 0.4578275f, 0.40821073f};

    static final float[] CLIP_STD = {0.26862954f, 0.26130258f, 0.27577711f};

    /** An image as the vision tower takes it: {@code values} [t*h*w, 3*temporalPatch*patch*patch], row-major. */
    public record Patches(float[] values, int gridT, int gridH, int gridW, int rowLength) {
        public int rows() {
            return gridT * gridH * gridW;
        }
    }

    /** The processor's defaults for a vision tower's patch sizes. */
    public static ImageProcessor defaults(int patch, int temporalPatch, int merge) {
        return new ImageProcessor(patch, temporalPatch, merge, 56 * 56, 28 * 28 * 1280, CLIP_MEAN, CLIP_STD);
    }

    /**
     * {@code preprocessor_config.json}'s settings over the defaults: {@code min_pixels} / {@code max_pixels}, or
     * {@code size.shortest_edge} / {@code size.longest_edge} as newer files write them; {@code image_mean},
     * {@code image_std}, {@code patch_size}, {@code temporal_patch_size}, {@code merge_size}.
     */
    public static ImageProcessor read(JsonNode j, ImageProcessor defaults, String source) {
        long min =
                j.path("min_pixels").asLong(j.path("size").path("shortest_edge").asLong(defaults.minPixels()));
        long max =
                j.path("max_pixels").asLong(j.path("size").path("longest_edge").asLong(defaults.maxPixels()));
        ImageProcessor p = new ImageProcessor(
                j.path("patch_size").asInt(defaults.patch()),
                j.path("temporal_patch_size").asInt(defaults.temporalPatch()),
                j.path("merge_size").asInt(defaults.merge()),
                min,
                max,
                triple(j, "image_mean", defaults.mean(), source),
                triple(j, "image_std", defaults.std(), source));
        if (min <= 0 || max < min) {
            throw new IllegalArgumentException(
                    source + ": min_pixels " + min + " and max_pixels " + max + " must satisfy 0 < min <= max");
        }
        return p;
    }

    private static float[] triple(JsonNode j, String key, float[] fallback, String source) {
        JsonNode n = j.get(key);
        if (n == null || n.isNull()) {
            return fallback;
        }
        if (!n.isArray() || n.size() != 3) {
            throw new IllegalArgumentException(source + ": '" + key + "' must be three numbers, one per channel");
        }
        return new float[] {
            (float) n.get(0).asDouble(),
            (float) n.get(1).asDouble(),
            (float) n.get(2).asDouble()
        };
    }

    /** The settings as {@code preprocessor_config.json} holds them (what {@link #read} reads back). */
    public ObjectNode toJson() {
        ObjectNode j = JsonNodeFactory.instance.objectNode();
        j.put("image_processor_type", "Qwen2VLImageProcessor")
                .put("min_pixels", minPixels)
                .put("max_pixels", maxPixels)
                .put("patch_size", patch)
                .put("temporal_patch_size", temporalPatch)
                .put("merge_size", merge);
        ArrayNode m = j.putArray("image_mean");
        ArrayNode s = j.putArray("image_std");
        for (int c = 0; c < 3; c++) {
            m.add(mean[c]);
            s.add(std[c]);
        }
        return j;
    }

    /** The resize target's side multiple: 28 for patches of 14 merged 2 x 2. */
    public int factor() {
        return patch * merge;
    }

    /**
     * transformers' {@code smart_resize}: each side rounded to the nearest multiple of {@link #factor} (Python's
     * round, ties to even), then, if the area leaves [min, max], both sides scaled by one factor toward it (down
     * with floor, up with ceil). Returns {height, width}.
     */
    public int[] smartResize(int height, int width) {
        int f = factor();
        if ((double) Math.max(height, width) / Math.min(height, width) > 200) {
            throw new IllegalArgumentException(
                    "an image's aspect ratio must be under 200, got " + width + " x " + height);
        }
        long h = (long) Math.rint((double) height / f) * f;
        long w = (long) Math.rint((double) width / f) * f;
        if (h * w > maxPixels) {
            double beta = Math.sqrt((double) height * width / maxPixels);
            h = Math.max(f, (long) Math.floor(height / beta / f) * f);
            w = Math.max(f, (long) Math.floor(width / beta / f) * f);
        } else if (h * w < minPixels) {
            double beta = Math.sqrt((double) minPixels / ((double) height * width));
            h = (long) Math.ceil(height * beta / f) * f;
            w = (long) Math.ceil(width * beta / f) * f;
        }
        return new int[] {(int) h, (int) w};
    }

    /** The patches of one image. */
    public Patches patches(RgbImage image) {
        int[] size = smartResize(image.height(), image.width());
        RgbImage img = size[0] == image.height() && size[1] == image.width()
                ? image
                : PillowBicubic.resize(image, size[1], size[0]);
        int gh = img.height() / patch;
        int gw = img.width() / patch;
        int row = 3 * temporalPatch * patch * patch;
        float[] out = new float[gh * gw * row];
        int r = 0;
        // rows in (block row, block column, row in block, column in block) order; columns (channel, frame, y, x)
        for (int bh = 0; bh < gh / merge; bh++) {
            for (int bw = 0; bw < gw / merge; bw++) {
                for (int mh = 0; mh < merge; mh++) {
                    for (int mw = 0; mw < merge; mw++) {
                        int y0 = (bh * merge + mh) * patch;
                        int x0 = (bw * merge + mw) * patch;
                        int at = r++ * row;
                        for (int c = 0; c < 3; c++) {
                            for (int frame = 0; frame < temporalPatch; frame++) { // the one image, repeated
                                for (int y = 0; y < patch; y++) {
                                    for (int x = 0; x < patch; x++) {
                                        out[at++] = normalised(img.channel(x0 + x, y0 + y, c), c);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return new Patches(out, 1, gh, gw, row);
    }

    /**
     * transformers' rescale (v * (1/255) in float64, stored as float32), then normalize in float32: (x - mean) /
     * std.
     */
    private float normalised(int v, int c) {
        float x = (float) (v * (1.0 / 255.0));
        return (x - mean[c]) / std[c];
    }

    /** How many tokens the language model sees for an image of this size: (h / 28) * (w / 28). */
    public int tokens(int height, int width) {
        int[] size = smartResize(height, width);
        return (size[0] / factor()) * (size[1] / factor());
    }
}

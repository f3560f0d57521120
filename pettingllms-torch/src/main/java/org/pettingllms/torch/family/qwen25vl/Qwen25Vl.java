package org.pettingllms.torch.family.qwen25vl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.pettingllms.core.data.Image;
import org.pettingllms.text.CharCodec;
import org.pettingllms.text.CharVisionCodec;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.image.RgbImage;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.FamilyParts;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;
import org.pettingllms.torch.model.RandomWeights;

/** The Qwen2.5-VL family: reads a checkpoint in either transformers layout into a {@link Qwen25VlModel}. */
public final class Qwen25Vl implements ModelFamily {
    /** The vision-language presets made here from scratch. */
    public static final Set<String> PRESETS = Set.of("vl-tiny");

    @Override
    public Set<String> modelTypes() {
        return Set.of("qwen2_5_vl");
    }

    @Override
    public Set<String> presets() {
        return PRESETS;
    }

    @Override
    public boolean seesImages() {
        return true;
    }

    @Override
    public LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        return random(preset(preset), seed, device, dataType);
    }

    @Override
    public Description describeFresh(String preset, List<Image> images) {
        return describe(preset(preset).json(), null, images);
    }

    @Override
    public ModelConfig decoderConfig(JsonNode config, String source) {
        return Qwen25VlConfig.fromJson(config, source).text();
    }

    @Override
    public Description describe(JsonNode config, Path dir, List<Image> images) {
        Qwen25VlConfig cfg = Qwen25VlConfig.fromJson(
                config, dir == null ? "config" : dir.resolve("config.json").toString());
        ImageProcessor processor = processor(dir, cfg);
        Qwen25VlConfig.Vision v = cfg.vision();
        List<String> lines = new ArrayList<>();
        lines.add(String.format(
                "vision tower: %d blocks, width %d, %d heads, patches of %d px merged %d x %d into tokens of width %d,"
                        + " windows of %d px (full attention in blocks %s), %,d parameters (frozen)",
                v.depth(),
                v.hidden(),
                v.heads(),
                v.patch(),
                v.merge(),
                v.merge(),
                v.outHidden(),
                v.window(),
                v.fullAttentionBlocks(),
                parameters(v)));
        lines.add(String.format(
                "image processor: %,d to %,d pixels, sides rounded to multiples of %d; M-RoPE sections %s",
                processor.minPixels(), processor.maxPixels(), processor.factor(), cfg.mropeSection()));
        List<Integer> tokens = new ArrayList<>();
        for (Image image : images) {
            RgbImage rgb = RgbImage.decode(image.bytes(), "image");
            int[] size = processor.smartResize(rgb.height(), rgb.width());
            int n = processor.tokens(rgb.height(), rgb.width());
            tokens.add(n);
            lines.add(String.format(
                    "image %d x %d -> %d x %d -> %d tokens", rgb.width(), rgb.height(), size[1], size[0], n));
        }
        return new Description(lines, parameters(v), tokens);
    }

    /** The tower's weights: patch embedding, blocks, merger (from the config alone). */
    static long parameters(Qwen25VlConfig.Vision v) {
        long h = v.hidden();
        long block = 2 * h
                + (3 * h * h + 3 * h)
                + (h * h + h)
                + 2 * (h * v.intermediate() + v.intermediate())
                + (v.intermediate() * h + h);
        long merged = h * v.merge() * v.merge();
        long merger = h + (merged * merged + merged) + ((long) v.outHidden() * merged + v.outHidden());
        return h * v.patchValues() + v.depth() * block + merger;
    }

    @Override
    public LanguageModel load(ModelFiles files, Device device, DataType dataType) {
        Qwen25VlConfig cfg = Qwen25VlConfig.fromJson(files.config(), files.source());
        ImageProcessor processor = processor(files.dir(), cfg);
        Map<String, Tensor> text = new LinkedHashMap<>();
        Map<String, Tensor> vision = new LinkedHashMap<>();
        files.weights().forEach((name, t) -> {
            String k = hubName(name);
            (k.startsWith("visual.") ? vision : text).put(k, t);
        });
        Torch.requireSupported(dataType);
        NDManager decoderScope = Torch.engine().newBaseManager(device);
        try {
            // the tower's weights live under the decoder's memory scope: whoever closes the decoder frees them too
            NDManager m = decoderScope.newSubManager();
            Map<String, NDArray> params = new LinkedHashMap<>();
            vision.forEach((k, t) -> {
                NDArray a = m.create(t.data(), new Shape(t.shape()));
                if (dataType != DataType.FLOAT32) {
                    NDArray cast = a.toType(dataType, false);
                    a.close(); // the float32 copy is not kept, as the decoder keeps none
                    a = cast;
                }
                params.put(k, a);
            });
            VisionInput input =
                    new VisionInput(cfg, processor, dataType, new VisionTower(cfg.vision(), params, m), params);
            DecoderModel decoder = DecoderModel.fromTensors(
                    cfg.text(),
                    text,
                    decoderScope,
                    dataType,
                    new FamilyParts(new MRope(cfg.mropeSection()), input, input));
            return new Qwen25VlModel(cfg, decoder, input);
        } catch (RuntimeException e) {
            decoderScope.close();
            throw e;
        }
    }

    /**
     * {@code vl-tiny}: a Qwen2.5-VL of about 1M parameters over {@link CharVisionCodec}'s 102 ids (image token 100):
     * a Qwen2-style decoder of 4 layers, width 128, 4 query and 2 key-value heads of 32 with M-RoPE sections
     * [4, 6, 6], tied embeddings; a vision tower of 2 blocks of width 64 (2 heads), patches of 14, windows of 112
     * pixels with block 1 attending to the whole image, merged 2 x 2 into tokens of width 128. In transformers 5's
     * config layout, so transformers loads what is saved.
     */
    public static Qwen25VlConfig preset(String name) {
        if (!PRESETS.contains(name)) {
            throw new IllegalArgumentException("unknown vision-language preset '" + name + "'; presets: " + PRESETS);
        }
        ObjectMapper json = new ObjectMapper();
        ObjectNode j = json.createObjectNode();
        j.putArray("architectures").add("Qwen2_5_VLForConditionalGeneration");
        j.put("model_type", "qwen2_5_vl")
                .put("image_token_id", CharVisionCodec.IMAGE_PAD)
                .put("vision_start_token_id", CharVisionCodec.VISION_START)
                .put("vision_end_token_id", CharVisionCodec.VISION_END)
                .put("tie_word_embeddings", true);
        ObjectNode text = j.putObject("text_config");
        text.put("model_type", "qwen2_5_vl_text")
                .put("vocab_size", CharVisionCodec.VOCAB)
                .put("hidden_size", 128)
                .put("intermediate_size", 384)
                .put("num_hidden_layers", 4)
                .put("num_attention_heads", 4)
                .put("num_key_value_heads", 2)
                .put("hidden_act", "silu")
                .put("rms_norm_eps", 1e-6)
                .put("max_position_embeddings", 4096)
                .put("tie_word_embeddings", true)
                .put("bos_token_id", 1)
                .put("eos_token_id", CharCodec.EOS);
        ObjectNode rope = text.putObject("rope_parameters");
        rope.put("rope_type", "default").put("type", "mrope").put("rope_theta", 10000.0);
        rope.putArray("mrope_section").add(4).add(6).add(6);
        ObjectNode v = j.putObject("vision_config");
        v.put("model_type", "qwen2_5_vl_vision")
                .put("depth", 2)
                .put("hidden_size", 64)
                .put("intermediate_size", 128)
                .put("num_heads", 2)
                .put("hidden_act", "silu")
                .put("in_channels", 3)
                .put("patch_size", 14)
                .put("temporal_patch_size", 2)
                .put("spatial_merge_size", 2)
                .put("window_size", 112)
                .put("out_hidden_size", 128)
                .put("tokens_per_second", 2);
        v.putArray("fullatt_block_indexes").add(1);
        return Qwen25VlConfig.fromJson(j, "preset " + name);
    }

    /**
     * A model with random weights (deterministic for a seed): the decoder as {@link DecoderModel#random} draws it,
     * the tower's matrices ~ N(0, 0.02), its biases 0 and norms 1, as transformers initialises them.
     */
    public static LanguageModel random(Qwen25VlConfig cfg, long seed, Device device, DataType dataType) {
        SplittableRandom rng = new SplittableRandom(seed);
        Map<String, Tensor> t = RandomWeights.decoder(cfg.text(), rng);
        Qwen25VlConfig.Vision v = cfg.vision();
        int h = v.hidden();
        RandomWeights.normal(t, "visual.patch_embed.proj.weight", rng, h, v.patchValues());
        t.put(
                "visual.patch_embed.proj.weight",
                new Tensor(
                        new long[] {h, v.inChannels(), v.temporalPatch(), v.patch(), v.patch()},
                        t.get("visual.patch_embed.proj.weight").data()));
        for (int i = 0; i < v.depth(); i++) {
            String p = "visual.blocks." + i + ".";
            RandomWeights.ones(t, p + "norm1.weight", h);
            RandomWeights.ones(t, p + "norm2.weight", h);
            linear(t, p + "attn.qkv", rng, 3 * h, h);
            linear(t, p + "attn.proj", rng, h, h);
            linear(t, p + "mlp.gate_proj", rng, v.intermediate(), h);
            linear(t, p + "mlp.up_proj", rng, v.intermediate(), h);
            linear(t, p + "mlp.down_proj", rng, h, v.intermediate());
        }
        int merged = h * v.merge() * v.merge();
        RandomWeights.ones(t, "visual.merger.ln_q.weight", h);
        linear(t, "visual.merger.mlp.0", rng, merged, merged);
        linear(t, "visual.merger.mlp.2", rng, v.outHidden(), merged);
        return new Qwen25Vl().load(new ModelFiles(null, cfg.json(), t), device, dataType);
    }

    private static void linear(Map<String, Tensor> t, String name, SplittableRandom rng, int out, int in) {
        RandomWeights.normal(t, name + ".weight", rng, out, in);
        t.put(name + ".bias", new Tensor(new long[] {out}, new float[out]));
    }

    /**
     * The 4.x checkpoint names ({@code model.layers.*}, {@code visual.*}), which transformers 5 still writes, for
     * the module names 5.x uses in memory ({@code model.language_model.*}, {@code model.visual.*}).
     */
    static String hubName(String name) {
        if (name.startsWith("model.language_model.")) {
            return "model." + name.substring("model.language_model.".length());
        }
        if (name.startsWith("model.visual.")) {
            return name.substring("model.".length());
        }
        return name;
    }

    private static ImageProcessor processor(Path dir, Qwen25VlConfig cfg) {
        ImageProcessor defaults = ImageProcessor.defaults(
                cfg.vision().patch(), cfg.vision().temporalPatch(), cfg.vision().merge());
        Path file = dir == null ? null : dir.resolve("preprocessor_config.json");
        if (file == null || !Files.exists(file)) {
            return defaults;
        }
        try {
            return ImageProcessor.read(new ObjectMapper().readTree(file.toFile()), defaults, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
    }
}

package org.pettingllms.torch.family;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.pettingllms.core.data.Image;
import org.pettingllms.torch.family.qwen25vl.Qwen25Vl;
import org.pettingllms.torch.family.text.TextDecoders;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;
import org.pettingllms.torch.model.Presets;

/** The model families the engine runs, by the {@code model_type} of their {@code config.json}. */
public final class ModelFamilies {
    private static final Map<String, ModelFamily> BY_TYPE = Map.of(
            "llama", TextDecoders.FAMILY,
            "qwen2", TextDecoders.FAMILY,
            "qwen3", TextDecoders.FAMILY,
            "qwen2_5_vl", Qwen25Vl.FAMILY);

    private ModelFamilies() {}

    /** A model directory's model on {@code device}, held as {@code dataType}. */
    public static LanguageModel load(Path dir, Device device, DataType dataType) throws IOException {
        JsonNode config = config(dir);
        return family(config, dir.resolve("config.json").toString())
                .load(new ModelFiles(dir, config, SafeTensors.readModelDir(dir)), device, dataType);
    }

    /**
     * A fresh model made here with random weights (deterministic for a seed): a text preset ({@link Presets}) or
     * a vision-language one ({@link Qwen25Vl#PRESETS}).
     */
    public static LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        if (Qwen25Vl.PRESETS.contains(preset)) {
            return Qwen25Vl.random(Qwen25Vl.preset(preset), seed, device, dataType);
        }
        DecoderModel m = DecoderModel.random(Presets.of(preset), seed, device, dataType);
        return () -> m;
    }

    /** Whether a fresh preset's model takes images. */
    public static boolean freshSeesImages(String preset) {
        return Qwen25Vl.PRESETS.contains(preset);
    }

    /** What a dry run says of a model directory beyond its decoder, for its first prompts' images (no weights). */
    public static ModelFamily.Description describe(Path dir, List<Image> images) throws IOException {
        JsonNode config = config(dir);
        return family(config, dir.resolve("config.json").toString()).describe(config, dir, images);
    }

    /** As {@link #describe(Path, List)} for a fresh preset. */
    public static ModelFamily.Description describeFresh(String preset, List<Image> images) {
        if (Qwen25Vl.PRESETS.contains(preset)) {
            return Qwen25Vl.FAMILY.describe(Qwen25Vl.preset(preset).json(), null, images);
        }
        return TextDecoders.FAMILY.describe(null, null, images);
    }

    /** A model directory's text decoder settings, without loading its weights. */
    public static ModelConfig decoderConfig(Path dir) throws IOException {
        JsonNode config = config(dir);
        String source = dir.resolve("config.json").toString();
        return family(config, source).decoderConfig(config, source);
    }

    /** The family of a config; an unknown {@code model_type} fails naming it and the supported ones. */
    public static ModelFamily family(JsonNode config, String source) {
        String type = config.path("model_type").asText(null);
        if (type == null) {
            throw new IllegalArgumentException(source + ": missing field 'model_type'");
        }
        ModelFamily f = BY_TYPE.get(type);
        if (f == null) {
            throw new IllegalArgumentException(source + ": model_type '" + type + "' is not supported; supported: "
                    + new TreeSet<>(BY_TYPE.keySet()));
        }
        return f;
    }

    /** A model directory's {@code config.json}. */
    public static JsonNode config(Path dir) throws IOException {
        Path file = dir.resolve("config.json");
        if (!Files.exists(file)) {
            throw new IOException(dir + ": no config.json (expected a Hugging Face model directory)");
        }
        return new ObjectMapper().readTree(file.toFile());
    }
}

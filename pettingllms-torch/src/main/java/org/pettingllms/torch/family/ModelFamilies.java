package org.pettingllms.torch.family;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import org.pettingllms.core.data.Image;
import org.pettingllms.torch.io.SafeTensors;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;

/**
 * The model families the engine runs, found with {@link ServiceLoader}
 * ({@code META-INF/services/org.pettingllms.torch.model.ModelFamily}), by the {@code model_type} of their
 * {@code config.json} and by the names of their fresh presets.
 */
public final class ModelFamilies {
    private static final Map<String, ModelFamily> BY_TYPE = new TreeMap<>();
    private static final Map<String, ModelFamily> BY_PRESET = new LinkedHashMap<>();

    static {
        for (ModelFamily f : ServiceLoader.load(ModelFamily.class, ModelFamilies.class.getClassLoader())) {
            for (String type : f.modelTypes()) {
                claim(BY_TYPE, type, f, "model_type");
            }
            for (String preset : f.presets()) {
                claim(BY_PRESET, preset, f, "preset");
            }
        }
    }

    private ModelFamilies() {}

    private static void claim(Map<String, ModelFamily> map, String name, ModelFamily f, String what) {
        ModelFamily before = map.putIfAbsent(name, f);
        if (before != null && before.getClass() != f.getClass()) {
            throw new IllegalStateException(what + " '" + name + "' is claimed by two model families: "
                    + before.getClass().getName() + " and " + f.getClass().getName());
        }
    }

    /** A model directory's model on {@code device}, held as {@code dataType}. */
    public static LanguageModel load(Path dir, Device device, DataType dataType) throws IOException {
        JsonNode config = config(dir);
        return family(config, dir.resolve("config.json").toString())
                .load(new ModelFiles(dir, config, SafeTensors.readModelDir(dir)), device, dataType);
    }

    /** A fresh model made here with random weights (deterministic for a seed) from one family's preset. */
    public static LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        return ofPreset(preset).fresh(preset, seed, device, dataType);
    }

    /** Whether a fresh preset's model takes images. */
    public static boolean freshSeesImages(String preset) {
        return ofPreset(preset).seesImages();
    }

    /** Every family's presets, for messages. */
    public static String presetNames() {
        return String.join(", ", BY_PRESET.keySet());
    }

    /** What a dry run says of a model directory beyond its decoder, for its first prompts' images (no weights). */
    public static ModelFamily.Description describe(Path dir, List<Image> images) throws IOException {
        JsonNode config = config(dir);
        return family(config, dir.resolve("config.json").toString()).describe(config, dir, images);
    }

    /** As {@link #describe(Path, List)} for a fresh preset. */
    public static ModelFamily.Description describeFresh(String preset, List<Image> images) {
        return ofPreset(preset).describeFresh(preset, images);
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
            throw new IllegalArgumentException(
                    source + ": model_type '" + type + "' is not supported; supported: " + BY_TYPE.keySet());
        }
        return f;
    }

    private static ModelFamily ofPreset(String preset) {
        ModelFamily f = BY_PRESET.get(preset);
        if (f == null) {
            throw new IllegalArgumentException("unknown model preset '" + preset + "'; presets: " + presetNames());
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

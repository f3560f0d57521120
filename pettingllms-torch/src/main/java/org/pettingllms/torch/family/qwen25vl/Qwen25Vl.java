package org.pettingllms.torch.family.qwen25vl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.pettingllms.torch.io.Tensor;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;

/** The Qwen2.5-VL family: reads a checkpoint in either transformers layout into a {@link Qwen25VlModel}. */
public final class Qwen25Vl implements ModelFamily {
    public static final Qwen25Vl FAMILY = new Qwen25Vl();

    private Qwen25Vl() {}

    @Override
    public ModelConfig decoderConfig(JsonNode config, String source) {
        return Qwen25VlConfig.fromJson(config, source).text();
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
        DecoderModel decoder = DecoderModel.fromTensors(cfg.text(), text, device, dataType);
        // the tower's weights live under the decoder's memory scope: whoever closes the decoder frees them too
        NDManager m = decoder.manager().newSubManager();
        try {
            Map<String, NDArray> params = new LinkedHashMap<>();
            vision.forEach((k, t) -> {
                NDArray a = m.create(t.data(), new Shape(t.shape()));
                params.put(k, dataType == DataType.FLOAT32 ? a : a.toType(dataType, false));
            });
            Qwen25VlModel model =
                    new Qwen25VlModel(cfg, processor, decoder, new VisionTower(cfg.vision(), params, m), params);
            decoder.useFamilyParts(model, model);
            return model;
        } catch (RuntimeException e) {
            decoder.close();
            throw e;
        }
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

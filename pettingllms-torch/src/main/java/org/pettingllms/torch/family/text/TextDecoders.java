package org.pettingllms.torch.family.text;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashSet;
import java.util.Set;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;
import org.pettingllms.torch.model.Presets;

/** The text decoders: Llama, Qwen2 and Qwen3 ({@link DecoderModel}), and the text presets ({@link Presets}). */
public final class TextDecoders implements ModelFamily {
    @Override
    public Set<String> modelTypes() {
        return Set.of("llama", "qwen2", "qwen3");
    }

    @Override
    public LanguageModel load(ModelFiles files, Device device, DataType dataType) {
        DecoderModel model = DecoderModel.fromTensors(
                decoderConfig(files.config(), files.source()), files.weights(), device, dataType);
        return () -> model;
    }

    @Override
    public ModelConfig decoderConfig(JsonNode config, String source) {
        return ModelConfig.fromJson(config, source);
    }

    @Override
    public Set<String> presets() {
        return new LinkedHashSet<>(Presets.TEXT);
    }

    @Override
    public LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        DecoderModel m = DecoderModel.random(Presets.of(preset), seed, device, dataType);
        return () -> m;
    }
}

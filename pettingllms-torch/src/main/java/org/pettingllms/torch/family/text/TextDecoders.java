package org.pettingllms.torch.family.text;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import org.pettingllms.torch.model.DecoderModel;
import org.pettingllms.torch.model.LanguageModel;
import org.pettingllms.torch.model.ModelConfig;
import org.pettingllms.torch.model.ModelFamily;
import org.pettingllms.torch.model.ModelFiles;

/** The text decoders: Llama, Qwen2 and Qwen3 ({@link DecoderModel}). */
public final class TextDecoders implements ModelFamily {
    public static final TextDecoders FAMILY = new TextDecoders();

    private TextDecoders() {}

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
}

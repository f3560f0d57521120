package org.pettingllms.torch.model;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One architecture family: how its {@code config.json} and weights become a model on a device. A new family is a
 * package holding its config reader, weights, input preparation, positions and forward pass, plus one line in
 * {@code org.pettingllms.torch.family.ModelFamilies}.
 */
public interface ModelFamily {
    /** The model {@code files} describe, on {@code device}, held as {@code dataType} (FLOAT32 or BFLOAT16). */
    LanguageModel load(ModelFiles files, Device device, DataType dataType);

    /**
     * The text decoder's settings a config describes (sizes, vocabulary, context, end token), read without the
     * weights: what a dry run prints and checks. {@code source} names the file in messages.
     */
    ModelConfig decoderConfig(JsonNode config, String source);
}

package org.pettingllms.torch.model;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.pettingllms.core.data.Image;

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

    /**
     * What a dry run says about the model beyond its decoder, from its files alone (no weights): an image encoder's
     * shape, and how many tokens each of {@code images} (the first prompts' images) becomes. Nothing for a text
     * family; a text family given images says it takes none.
     *
     * @param dir the model directory (its {@code preprocessor_config.json}), or null for a preset
     */
    default Description describe(JsonNode config, Path dir, List<Image> images) {
        return new Description(List.of(), 0, images.isEmpty() ? List.of() : null);
    }

    /**
     * @param lines       lines to print
     * @param parameters  weights beyond the decoder's (a vision tower)
     * @param imageTokens tokens each image becomes in the prompt; null when the model takes no images
     */
    record Description(List<String> lines, long parameters, List<Integer> imageTokens) {}
}

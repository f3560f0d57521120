package org.pettingllms.torch.model;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.pettingllms.core.data.Image;

/**
 * One architecture family: how its {@code config.json} and weights become a model on a device. A new family is a
 * package holding its config reader, weights, input preparation and position scheme ({@link FamilyParts}), plus one
 * line naming its class in {@code META-INF/services/org.pettingllms.torch.model.ModelFamily}: the engine finds
 * families with {@link java.util.ServiceLoader} ({@code org.pettingllms.torch.family.ModelFamilies}), so a jar on the
 * class path can add one.
 */
public interface ModelFamily {
    /** The {@code model_type} values of the {@code config.json} files this family reads. */
    Set<String> modelTypes();

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

    /** The presets this family makes from scratch ({@code policy.model: fresh:<preset>}); none by default. */
    default Set<String> presets() {
        return Set.of();
    }

    /** A fresh model of one of {@link #presets()}: random weights, deterministic for a seed. */
    default LanguageModel fresh(String preset, long seed, Device device, DataType dataType) {
        throw new IllegalArgumentException("model family " + modelTypes() + " makes no preset '" + preset + "'");
    }

    /** {@link #describe} for a fresh model of one of {@link #presets()}. */
    default Description describeFresh(String preset, List<Image> images) {
        return describe(null, null, images);
    }

    /** Whether this family's models take images in their prompts. */
    default boolean seesImages() {
        return false;
    }

    /**
     * @param lines       lines to print
     * @param parameters  weights beyond the decoder's (a vision tower)
     * @param imageTokens tokens each image becomes in the prompt; null when the model takes no images
     */
    record Description(List<String> lines, long parameters, List<Integer> imageTokens) {}
}

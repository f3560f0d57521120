package org.pettingllms.torch.model;

/**
 * What a family builds around its text decoder, given to {@link DecoderModel} when the decoder is made and fixed
 * from then on: its position scheme, its input in front of the decoder and its writer of the whole model.
 *
 * @param positions the rotary position scheme
 * @param encoder   the image input (a vision-language family); null for a text model
 * @param writer    how the whole model is saved; null for a text model ({@code config.json} and
 *                  {@code model.safetensors} of the decoder alone)
 */
public record FamilyParts(PositionScheme positions, InputEncoder encoder, ModelWriter writer) {
    /** A text decoder: one position per token, no image input, saved as itself. */
    public static final FamilyParts TEXT = new FamilyParts(PositionScheme.PER_TOKEN, null, null);

    public FamilyParts {
        java.util.Objects.requireNonNull(positions, "positions");
    }
}

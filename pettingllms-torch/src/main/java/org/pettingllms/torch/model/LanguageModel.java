package org.pettingllms.torch.model;

/**
 * A loaded model of some family: its text decoder (what sampling, training and adapters work on) and, for a
 * vision-language family, what turns images into the decoder's input embeddings.
 */
public interface LanguageModel extends AutoCloseable {
    DecoderModel decoder();

    /** Whether the model takes images in its prompts. */
    default boolean seesImages() {
        return false;
    }

    @Override
    default void close() {
        decoder().close();
    }
}

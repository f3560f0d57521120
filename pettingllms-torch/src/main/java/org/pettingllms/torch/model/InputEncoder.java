package org.pettingllms.torch.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Image;

/**
 * What a vision-language family adds in front of its text decoder: the input embeddings and positions of prompts
 * that show images. Sampling and training call it for every batch that holds an image; a decoder without one takes
 * token ids only.
 */
public interface InputEncoder {
    /**
     * Embeddings [B, W, hidden] in the decoder's type (each image's placeholders replaced by its tokens), positions
     * [3, B, W] (int64) and each row's rope delta: the position of a row's token at index i >= its length is
     * {@code i + delta}, on every axis.
     */
    record Encoded(NDArray embeddings, NDArray positions, long[] deltas) {}

    /**
     * A prompt's ids with each image's single placeholder (as a chat template writes it) expanded to the image's
     * token count; {@code what} names the prompt in messages.
     */
    int[] expand(int[] ids, List<Image> images, String what);

    /**
     * Checks that expanded ids hold exactly {@code images}' placeholders, one full run per image in order, before
     * they join a batch (a bad request then fails alone); fails naming {@code what}.
     */
    void check(int[] ids, List<Image> images, String what);

    /**
     * The ids that mark images in a prompt (placeholder, start, end): left out of a completion's text, so that a
     * sampled one never turns into a placeholder of a later prompt that shows the text.
     */
    int[] imageTokenIds();

    /**
     * Left-padded rows ({@code in}, from {@link Inputs#leftPadded} over {@code rows}, already expanded) with each
     * row's images (an empty list for a text row), encoded for {@code decoder} in {@code scope}. Only the first
     * {@code promptLengths[r]} tokens of row r are its prompt, where placeholders stand for images; the tokens after
     * them (a completion being trained on) are text whatever their ids, as a model may sample a placeholder's id.
     */
    Encoded encode(
            DecoderModel decoder,
            Inputs.Batch in,
            List<int[]> rows,
            int[] promptLengths,
            List<List<Image>> images,
            NDManager scope);

    /**
     * The encoder's own weights by Hugging Face name (a vision tower's), which full fine-tuning updates in place
     * where {@code engine.trainVisionTower} is set; none by default.
     */
    default Map<String, NDArray> parameters() {
        return Map.of();
    }

    /**
     * This encoder with copies of its weights in {@code manager} (the frozen KL
     * reference of a model whose tower trains); an encoder without weights is its own copy.
     */
    default InputEncoder copy(NDManager manager) {
        return this;
    }
}

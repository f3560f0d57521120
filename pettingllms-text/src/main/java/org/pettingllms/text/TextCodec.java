package org.pettingllms.text;

import java.util.Optional;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/** Turns text into token ids and back, for one model. */
public interface TextCodec {
    int[] encode(String text);

    String decode(int[] ids);

    /** Token ids that end a completion (end-of-sequence, end-of-turn). */
    int[] stopTokenIds();

    /** The model's chat template, if it has one. */
    default Optional<ChatTemplate> chatTemplate() {
        return Optional.empty();
    }

    /**
     * The token ids the model reads for {@code prompt}: a compact prompt is its raw text; a chat prompt needs the
     * model's chat template, which codecs without one do not have.
     */
    default int[] encodePrompt(Prompt prompt) {
        if (prompt.style() != PromptStyle.COMPACT) {
            throw new UnsupportedOperationException(
                    "chat prompts need a model with a chat template (chat_template"
                            + " in tokenizer_config.json, or chat_template.jinja); this model has none: set task.style: compact");
        }
        return encode(prompt.text());
    }
}

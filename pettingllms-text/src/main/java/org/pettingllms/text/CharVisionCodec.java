package org.pettingllms.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * {@link CharCodec} with Qwen2-VL's three image tokens after its 99 ids: {@code <|vision_start|>} (99),
 * {@code <|image_pad|>} (100) and {@code <|vision_end|>} (101), for the vision-language models made here. A compact
 * prompt shows each of a message's images as start, one pad, end before the message's text (the model's family
 * expands the pad to the image's token count); a chat template writes the same three tokens as text, which this
 * codec reads back as the three ids.
 */
public final class CharVisionCodec implements TextCodec {
    public static final int VISION_START = CharCodec.VOCAB;
    public static final int IMAGE_PAD = CharCodec.VOCAB + 1;
    public static final int VISION_END = CharCodec.VOCAB + 2;
    public static final int VOCAB = CharCodec.VOCAB + 3;
    private static final String[] TOKENS = {"<|vision_start|>", "<|image_pad|>", "<|vision_end|>"};
    private final CharCodec chars;

    public CharVisionCodec(ChatTemplate template) {
        this.chars = new CharCodec(template);
    }

    /** The codec of a model directory, with its chat template when it has one. */
    public static CharVisionCodec of(Path dir) throws IOException {
        return new CharVisionCodec(ChatTemplate.load(dir).orElse(null));
    }

    @Override
    public Optional<ChatTemplate> chatTemplate() {
        return chars.chatTemplate();
    }

    @Override
    public int[] encodePrompt(Prompt prompt) {
        if (prompt.style() == PromptStyle.CHAT && chars.chatTemplate().isPresent()) {
            return encode(chars.chatTemplate().get().render(prompt.messages(), true, Map.of()));
        }
        if (prompt.style() != PromptStyle.COMPACT) {
            return chars.encodePrompt(prompt); // refuses a chat prompt without a template, in its words
        }
        StringBuilder text = new StringBuilder();
        for (ChatMessage m : prompt.messages()) {
            if (!text.isEmpty()) {
                text.append("\n\n"); // as Prompt.text() joins messages
            }
            m.images().forEach(i -> text.append(TOKENS[0]).append(TOKENS[1]).append(TOKENS[2]));
            text.append(m.content());
        }
        return encode(text.toString());
    }

    /** Characters as {@link CharCodec}; the three image tokens' texts as their ids. */
    @Override
    public int[] encode(String text) {
        int[] out = new int[text.length()];
        int n = 0;
        int from = 0;
        while (from < text.length()) {
            int token = tokenAt(text, from);
            if (token >= 0) {
                out[n++] = VISION_START + token;
                from += TOKENS[token].length();
            } else {
                out[n++] = chars.encode(text.substring(from, from + 1))[0];
                from++;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    private static int tokenAt(String text, int at) {
        for (int t = 0; t < TOKENS.length; t++) {
            if (text.startsWith(TOKENS[t], at)) {
                return t;
            }
        }
        return -1;
    }

    /** Characters as {@link CharCodec}; the image tokens, like the other special ids, decode to nothing. */
    @Override
    public String decode(int[] ids) {
        return chars.decode(ids);
    }

    @Override
    public int[] stopTokenIds() {
        return chars.stopTokenIds();
    }

    /** {@link CharCodec#tokenizerJson()} with the three image tokens added (ids 99-101). */
    public static JsonNode tokenizerJson() {
        ObjectNode root = (ObjectNode) CharCodec.tokenizerJson();
        ArrayNode added = (ArrayNode) root.get("added_tokens");
        ObjectNode vocab = (ObjectNode) root.get("model").get("vocab");
        for (int t = 0; t < TOKENS.length; t++) {
            CharCodec.addSpecial(added, VISION_START + t, TOKENS[t]);
            vocab.put(TOKENS[t], VISION_START + t);
        }
        return root;
    }

    /** Writes {@code tokenizer.json} and {@code tokenizer_config.json} into a model directory, each atomically. */
    public static void writeTokenizerFiles(Path dir) throws IOException {
        CharCodec.writeTokenizerFiles(dir, tokenizerJson());
    }

    /** Whether a model directory's {@code tokenizer.json} is this codec's. */
    public static boolean describes(Path dir) throws IOException {
        return CharCodec.describes(dir, tokenizerJson());
    }
}

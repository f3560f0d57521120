package org.pettingllms.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.util.AtomicFiles;

/**
 * A character-level codec for the tiny models trained here from scratch on compact prompts: ids 0 (padding),
 * 1 (begin), 2 (end of answer), then newline and printable ASCII (space to tilde), 99 ids in all. Other characters
 * encode as {@code ?}; special ids decode to nothing. A model directory may give it a chat template (as any
 * Hugging Face model does), which chat prompts then go through.
 */
public final class CharCodec implements TextCodec {
    public static final int EOS = 2;
    public static final int VOCAB = 99;
    private static final int NEWLINE = 3;
    private static final String[] SPECIAL = {"<pad>", "<s>", "</s>"};
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChatTemplate template;

    /** The codec without a chat template. */
    public CharCodec() {
        this(null);
    }

    /** @param template the model's chat template, or null */
    public CharCodec(ChatTemplate template) {
        this.template = template;
    }

    /** The codec of a model directory, with its chat template when it has one. */
    public static CharCodec of(Path dir) throws IOException {
        return new CharCodec(ChatTemplate.load(dir).orElse(null));
    }

    @Override
    public Optional<ChatTemplate> chatTemplate() {
        return Optional.ofNullable(template);
    }

    @Override
    public int[] encodePrompt(Prompt prompt) {
        return prompt.style() == PromptStyle.CHAT && template != null
                ? encode(template.render(prompt.messages(), true, Map.of()))
                : TextCodec.super.encodePrompt(prompt);
    }

    @Override
    public int[] encode(String text) {
        return text.chars().map(CharCodec::id).toArray();
    }

    private static int id(int c) {
        if (c == '\n') {
            return NEWLINE;
        }
        return c >= 32 && c <= 126 ? 4 + (c - 32) : 4 + ('?' - 32);
    }

    @Override
    public String decode(int[] ids) {
        StringBuilder sb = new StringBuilder(ids.length);
        for (int id : ids) {
            if (id == NEWLINE) {
                sb.append('\n');
            } else if (id >= 4 && id < VOCAB) {
                sb.append((char) (32 + id - 4));
            }
        }
        return sb.toString();
    }

    @Override
    public int[] stopTokenIds() {
        return new int[] {EOS};
    }

    /**
     * This codec as a Hugging Face {@code tokenizer.json}, so that transformers, vLLM or the tokenizers library
     * load the models made here: a WordLevel vocabulary of single characters after a pre-tokenizer that isolates
     * every character, unknown characters as {@code ?}, the three special tokens, and a decoder that joins the
     * pieces without spaces. (Two differences: the text {@code <s>} (or {@code <pad>}, {@code </s>}) is one special
     * token there and its characters here; a character outside the Basic Multilingual Plane is one {@code ?} there
     * and two here, one per UTF-16 unit. The engine therefore keeps this codec for these models.)
     */
    public static JsonNode tokenizerJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        ArrayNode added = root.putArray("added_tokens");
        for (int id = 0; id < SPECIAL.length; id++) {
            addSpecial(added, id, SPECIAL[id]);
        }
        root.putNull("normalizer");
        ObjectNode pre = root.putObject("pre_tokenizer");
        pre.put("type", "Split");
        pre.putObject("pattern").put("Regex", "[\\s\\S]");
        pre.put("behavior", "Isolated");
        pre.put("invert", false);
        root.putNull("post_processor");
        root.putObject("decoder").put("type", "Fuse");
        ObjectNode model = root.putObject("model");
        model.put("type", "WordLevel");
        ObjectNode vocab = model.putObject("vocab");
        for (int id = 0; id < SPECIAL.length; id++) {
            vocab.put(SPECIAL[id], id);
        }
        vocab.put("\n", NEWLINE);
        for (int c = 32; c <= 126; c++) {
            vocab.put(String.valueOf((char) c), id(c));
        }
        model.put("unk_token", "?");
        return root;
    }

    /** A special token of {@code tokenizer.json}'s {@code added_tokens}: matched whole, never normalised. */
    static void addSpecial(ArrayNode added, int id, String content) {
        added.addObject()
                .put("id", id)
                .put("content", content)
                .put("single_word", false)
                .put("lstrip", false)
                .put("rstrip", false)
                .put("normalized", false)
                .put("special", true);
    }

    /** The matching {@code tokenizer_config.json}: special tokens and the fast tokenizer class. */
    public static JsonNode tokenizerConfigJson() {
        ObjectNode cfg = JSON.createObjectNode();
        cfg.put("tokenizer_class", "PreTrainedTokenizerFast");
        cfg.put("pad_token", SPECIAL[0]);
        cfg.put("bos_token", SPECIAL[1]);
        cfg.put("eos_token", SPECIAL[EOS]);
        cfg.put("clean_up_tokenization_spaces", false);
        return cfg;
    }

    /** Writes {@code tokenizer.json} and {@code tokenizer_config.json} into a model directory, each atomically. */
    public static void writeTokenizerFiles(Path dir) throws IOException {
        writeTokenizerFiles(dir, tokenizerJson());
    }

    /** Whether a model directory's {@code tokenizer.json} is this codec's (then the engine uses this codec). */
    public static boolean describes(Path dir) throws IOException {
        return describes(dir, tokenizerJson());
    }

    /** Writes {@code tokenizer} as {@code tokenizer.json} and the matching {@code tokenizer_config.json}, atomically. */
    static void writeTokenizerFiles(Path dir, JsonNode tokenizer) throws IOException {
        AtomicFiles.writeString(
                dir.resolve("tokenizer.json"),
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tokenizer));
        AtomicFiles.writeString(
                dir.resolve("tokenizer_config.json"),
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tokenizerConfigJson()));
    }

    /** Whether a model directory's {@code tokenizer.json} is {@code tokenizer}. */
    static boolean describes(Path dir, JsonNode tokenizer) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        return Files.exists(file) && JSON.readTree(file.toFile()).equals(tokenizer);
    }
}

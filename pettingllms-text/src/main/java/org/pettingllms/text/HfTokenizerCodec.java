package org.pettingllms.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * A Hugging Face {@code tokenizer.json} through DJL's binding of the Rust tokenizers library (its native library
 * ships in the jar). No special tokens are added on encode: prompts carry their own (chat templates write them).
 * Stop tokens: the {@code eos_token} of {@code tokenizer_config.json}, the model's {@code eos_token_id} and every id
 * of an {@code eos_token_id} in {@code config.json} (or its {@code text_config}) and {@code generation_config.json},
 * which may be a list (Llama 3's instruct models end a turn with either of two).
 */
public final class HfTokenizerCodec implements TextCodec, AutoCloseable {
    private final HuggingFaceTokenizer tokenizer;
    private final int[] stops;
    private final ChatTemplate template;

    private HfTokenizerCodec(HuggingFaceTokenizer tokenizer, int[] stops, ChatTemplate template) {
        this.tokenizer = tokenizer;
        this.stops = stops;
        this.template = template;
    }

    /** Loads {@code dir/tokenizer.json} (and {@code tokenizer_config.json} when present). */
    public static HfTokenizerCodec load(Path dir, int modelEosId) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        if (!Files.exists(file)) {
            throw new IOException(dir + ": no tokenizer.json");
        }
        HuggingFaceTokenizer tok = HuggingFaceTokenizer.builder()
                .optTokenizerPath(file)
                .optAddSpecialTokens(false)
                .optTruncation(false)
                .optPadding(false)
                .build();
        Set<Integer> stops = new LinkedHashSet<>();
        if (modelEosId >= 0) {
            stops.add(modelEosId);
        }
        ObjectMapper json = new ObjectMapper();
        for (String name : new String[] {"config.json", "generation_config.json"}) {
            Path f = dir.resolve(name);
            if (Files.exists(f)) {
                JsonNode root = json.readTree(f.toFile());
                addIds(root.path("eos_token_id"), stops);
                addIds(root.path("text_config").path("eos_token_id"), stops);
            }
        }
        Path cfg = dir.resolve("tokenizer_config.json");
        if (Files.exists(cfg)) {
            JsonNode eos = new ObjectMapper().readTree(cfg.toFile()).path("eos_token");
            String eosText =
                    eos.isTextual() ? eos.asText() : eos.path("content").asText(null);
            if (eosText != null) {
                long[] ids = tok.encode(eosText, false, false).getIds();
                if (ids.length == 1) {
                    stops.add((int) ids[0]);
                }
            }
        }
        return new HfTokenizerCodec(
                tok,
                stops.stream().mapToInt(Integer::intValue).toArray(),
                ChatTemplate.load(dir).orElse(null));
    }

    /** An {@code eos_token_id}: one id or a list of them. */
    private static void addIds(JsonNode n, Set<Integer> out) {
        if (n.isIntegralNumber()) {
            out.add(n.asInt());
        } else if (n.isArray()) {
            n.forEach(id -> {
                if (id.isIntegralNumber()) {
                    out.add(id.asInt());
                }
            });
        }
    }

    @Override
    public Optional<ChatTemplate> chatTemplate() {
        return Optional.ofNullable(template);
    }

    @Override
    public int[] encode(String text) {
        Encoding e = tokenizer.encode(text, false, false);
        long[] ids = e.getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = (int) ids[i];
        }
        return out;
    }

    /**
     * Chat prompts go through the model's chat template, with the assistant's turn opened. A prompt whose text
     * does not come back from its tokens (a lone surrogate, a character the tokenizer normalises away) is
     * refused: the model would read something other than what the task wrote.
     */
    @Override
    public int[] encodePrompt(Prompt prompt) {
        String text = prompt.style() == PromptStyle.CHAT && template != null
                ? template.render(prompt.messages(), true, Map.of())
                : null;
        int[] ids = text != null ? encode(text) : TextCodec.super.encodePrompt(prompt);
        String expected = text != null ? text : prompt.text();
        String back = decode(ids);
        if (!back.equals(expected)) {
            int at = 0;
            while (at < Math.min(back.length(), expected.length()) && back.charAt(at) == expected.charAt(at)) {
                at++;
            }
            throw new IllegalArgumentException("prompt not sent: its text does not survive tokenisation (character "
                    + at + " of " + expected.length() + ": " + snippet(expected, at) + " comes back as "
                    + snippet(back, at) + ")");
        }
        return ids;
    }

    private static String snippet(String s, int at) {
        String part = s.substring(Math.max(0, at - 10), Math.min(s.length(), at + 10));
        StringBuilder out = new StringBuilder("\"");
        part.codePoints()
                .forEach(c -> out.append(
                        c < 0x20 || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFD
                                ? String.format("\\u%04x", c)
                                : Character.toString(c)));
        return out.append('"').toString();
    }

    @Override
    public String decode(int[] ids) {
        long[] l = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            l[i] = ids[i];
        }
        return tokenizer.decode(l, false);
    }

    @Override
    public int[] stopTokenIds() {
        return stops.clone();
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}

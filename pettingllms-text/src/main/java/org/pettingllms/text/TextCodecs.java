package org.pettingllms.text;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Which codec reads a model directory's text: the engine, the dry run and sft choose it here alike. */
public final class TextCodecs {
    private TextCodecs() {}

    /**
     * The character codecs of the models made here when the directory's {@code tokenizer.json} is theirs (or it has
     * none); otherwise the directory's Hugging Face tokenizer, ending answers at {@code eosTokenId}.
     */
    public static TextCodec of(Path dir, int eosTokenId) throws IOException {
        if (CharVisionCodec.describes(dir)) {
            return CharVisionCodec.of(dir);
        }
        if (CharCodec.describes(dir) || !Files.exists(dir.resolve("tokenizer.json"))) {
            return CharCodec.of(dir);
        }
        return HfTokenizerCodec.load(dir, eosTokenId);
    }

    /** The codec of a fresh model made here: with the image tokens for a vision-language one. */
    public static TextCodec fresh(boolean vision) {
        return vision ? new CharVisionCodec(null) : new CharCodec();
    }

    /** Writes the tokenizer files of a character codec into a model directory; false for any other codec. */
    public static boolean writeCharTokenizer(TextCodec codec, Path dir) throws IOException {
        if (codec instanceof CharVisionCodec) {
            CharVisionCodec.writeTokenizerFiles(dir);
            return true;
        }
        if (codec instanceof CharCodec) {
            CharCodec.writeTokenizerFiles(dir);
            return true;
        }
        return false;
    }
}

package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

class CharVisionCodecTest {
    static final Image BOARD = Image.png(new byte[] {1, 2, 3});

    @Test
    void aCompactPromptShowsEachImageAsStartPadEndBeforeItsText() {
        CharVisionCodec codec = new CharVisionCodec(null);
        Prompt p = new Prompt(List.of(ChatMessage.user("ab", List.of(BOARD, BOARD))), PromptStyle.COMPACT);
        int a = new CharCodec().encode("a")[0];
        int b = new CharCodec().encode("b")[0];
        assertThat(codec.encodePrompt(p)).containsExactly(99, 100, 101, 99, 100, 101, a, b);
        assertThat(codec.decode(codec.encodePrompt(p))).isEqualTo("ab");
        // text prompts encode exactly as the character codec's
        assertThat(codec.encodePrompt(Prompt.compact("x <|image_pad y")))
                .containsExactly(new CharCodec().encode("x <|image_pad y"));
    }

    @Test
    void aTemplatesImageTokensAreReadAsTheirIds() {
        CharVisionCodec codec = new CharVisionCodec(null);
        assertThat(codec.encode("<|vision_start|><|image_pad|><|vision_end|>!"))
                .containsExactly(99, 100, 101, new CharCodec().encode("!")[0]);
    }

    @Test
    void itsTokenizerFilesNameTheImageTokensAndTheEngineRecognisesThem(@TempDir Path dir) throws Exception {
        assertThat(CharVisionCodec.tokenizerJson()
                        .path("model")
                        .path("vocab")
                        .path("<|image_pad|>")
                        .asInt())
                .isEqualTo(CharVisionCodec.IMAGE_PAD);
        CharVisionCodec.writeTokenizerFiles(dir);
        assertThat(TextCodecs.of(dir, 2)).isInstanceOf(CharVisionCodec.class);
        assertThat(CharCodec.describes(dir)).isFalse();
        Path text = Files.createDirectories(dir.resolve("text"));
        CharCodec.writeTokenizerFiles(text);
        assertThat(TextCodecs.of(text, 2)).isInstanceOf(CharCodec.class);
    }
}

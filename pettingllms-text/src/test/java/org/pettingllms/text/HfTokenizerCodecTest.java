package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.testkit.SharedFiles;

/** The Qwen3 tokenizer through the native tokenizers library, offline. */
class HfTokenizerCodecTest {
    @Test
    void qwen3TokenizerRoundTripsAndKnowsItsSpecialTokens() throws Exception {
        try (HfTokenizerCodec codec = HfTokenizerCodec.load(SharedFiles.fixture("qwen3-tokenizer"), -1)) {
            int[] ids = codec.encode("<|im_start|>user\nHello, world! 12+30=42<|im_end|>");
            assertThat(ids[0]).isEqualTo(151644); // <|im_start|>
            assertThat(ids[ids.length - 1]).isEqualTo(151645); // <|im_end|>
            assertThat(codec.stopTokenIds()).containsExactly(151645); // eos_token of tokenizer_config.json
            for (String s :
                    new String[] {"RRDDL", "plan-path-v1 tool\n#..A\n>", "Grüße, 世界 \uD83D\uDE00", "  two  spaces"}) {
                assertThat(codec.decode(codec.encode(s))).isEqualTo(s);
            }
            assertThat(codec.encode("Hello")).hasSize(1);
        }
    }

    @Test
    void everyEosIdOfTheModelsConfigsStops(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        for (String f : new String[] {"tokenizer.json", "tokenizer_config.json"}) {
            java.nio.file.Files.copy(SharedFiles.fixture("qwen3-tokenizer").resolve(f), dir.resolve(f));
        }
        java.nio.file.Files.writeString(dir.resolve("config.json"), "{\"eos_token_id\": [151645, 151643]}");
        java.nio.file.Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": 151644}");
        try (HfTokenizerCodec codec = HfTokenizerCodec.load(dir, 151645)) {
            assertThat(codec.stopTokenIds()).containsExactlyInAnyOrder(151645, 151643, 151644);
        }
    }

    @Test
    void chatPromptsAreRenderedWithTheModelsTemplate() throws Exception {
        try (HfTokenizerCodec codec = HfTokenizerCodec.load(SharedFiles.fixture("qwen3-tokenizer"), -1)) {
            int[] ids = codec.encodePrompt(Prompt.chat("SYS", "What is 1+1?"));
            assertThat(codec.decode(ids))
                    .isEqualTo("<|im_start|>system\nSYS<|im_end|>\n<|im_start|>user\nWhat is 1+1?<|im_end|>\n"
                            + "<|im_start|>assistant\n");
            assertThat(ids[0]).isEqualTo(151644);
            assertThat(codec.encodePrompt(Prompt.compact("RRD"))).isEqualTo(codec.encode("RRD"));
        }
    }

    @Test
    void aPromptThatDoesNotSurviveTokenisationIsRefusedNotSent() throws Exception {
        try (HfTokenizerCodec codec = HfTokenizerCodec.load(SharedFiles.fixture("qwen3-tokenizer"), -1)) {
            // message text that looks like template code goes through unchanged, and round-trips
            int[] ids = codec.encodePrompt(Prompt.chat("S", "Compute $\\frac{{a}}{{b}}$ {% raw %}"));
            assertThat(codec.decode(ids)).contains("Compute $\\frac{{a}}{{b}}$ {% raw %}<|im_end|>");
            // a lone surrogate cannot be written as UTF-8: the tokenizer would read a replacement character
            assertThatThrownBy(() -> codec.encodePrompt(Prompt.chat("S", "broken \uD800 text")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("prompt not sent")
                    .hasMessageContaining("\\ud800");
            assertThatThrownBy(() -> codec.encodePrompt(Prompt.compact("x\uDC00")))
                    .hasMessageContaining("prompt not sent");
        }
    }

    @Test
    void aCodecWithoutTemplateRefusesChatPromptsClearly() {
        TextCodec withoutTemplate = new TextCodec() {
            @Override
            public int[] encode(String text) {
                return text.chars().toArray();
            }

            @Override
            public String decode(int[] ids) {
                return new String(ids, 0, ids.length);
            }

            @Override
            public int[] stopTokenIds() {
                return new int[0];
            }
        };
        assertThatThrownBy(() -> withoutTemplate.encodePrompt(Prompt.chat("s", "u")))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("chat template");
    }
}

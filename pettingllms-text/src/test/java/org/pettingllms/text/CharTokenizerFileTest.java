package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.data.ChatMessage;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/** The character codec written as a Hugging Face tokenizer.json encodes and decodes exactly as the codec does. */
class CharTokenizerFileTest {
    private static final CharCodec CHARS = new CharCodec();

    @Test
    void theTokenizerFileAgreesWithTheCodec(@TempDir Path dir) throws Exception {
        CharCodec.writeTokenizerFiles(dir);
        assertThat(CharCodec.describes(dir)).isTrue();
        StringBuilder ascii = new StringBuilder();
        for (char c = 32; c <= 126; c++) {
            ascii.append(c);
        }
        try (HfTokenizerCodec hf = HfTokenizerCodec.load(dir, CharCodec.EOS)) {
            for (String s : new String[] {
                ascii.toString(),
                "plan-path-v1 tool\n#..A\n>RRD\n",
                "  two  spaces ",
                "tab\there, accents é ü",
                "",
                "??"
            }) {
                assertThat(hf.encode(s)).as("encode %s", s).containsExactly(CHARS.encode(s));
                int[] ids = CHARS.encode(s);
                assertThat(hf.decode(ids)).as("decode %s", s).isEqualTo(CHARS.decode(ids));
            }
            assertThat(hf.stopTokenIds()).containsExactly(CharCodec.EOS);
        }
    }

    @Test
    void aChatTemplateBesideTheCodecsFilesIsWhatChatPromptsGoThrough(@TempDir Path dir) throws Exception {
        CharCodec.writeTokenizerFiles(dir);
        Prompt chat = new Prompt(List.of(ChatMessage.system("be brief"), ChatMessage.user("2+2")), PromptStyle.CHAT);
        assertThat(CharCodec.of(dir).chatTemplate()).isEmpty();
        assertThatThrownBy(() -> CharCodec.of(dir).encodePrompt(chat))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("chat template");
        Files.writeString(
                dir.resolve("chat_template.jinja"),
                "{% for m in messages %}{{ m.role }}: {{ m.content }}|{% endfor %}"
                        + "{% if add_generation_prompt %}{{ eos_token }}>{% endif %}");
        CharCodec codec = CharCodec.of(dir);
        assertThat(codec.decode(codec.encodePrompt(chat))).isEqualTo("system: be brief|user: 2+2|</s>>");
        assertThat(codec.chatTemplate()).isPresent();
    }

    @Test
    void theShippedModelsCarryTheCodecsTokenizerFile() throws Exception {
        Path home = Path.of(System.getProperty("pettingllms.home", "..")).toAbsolutePath();
        for (String model : new String[] {
            "plan-path-tiny",
            "sokoban-tiny",
            "sudoku-tiny",
            "plan-path-discovery",
            "sokoban-discovery",
            "sudoku-discovery"
        }) {
            assertThat(CharCodec.describes(home.resolve("models").resolve(model)))
                    .as(model)
                    .isTrue();
        }
    }
}

package org.pettingllms.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void theShippedModelsCarryTheCodecsTokenizerFile() throws Exception {
        Path home = Path.of(System.getProperty("pettingllms.home", "..")).toAbsolutePath();
        for (String model : new String[] {"plan-path-tiny", "sokoban-tiny", "sudoku-tiny"}) {
            assertThat(CharCodec.describes(home.resolve("models").resolve(model)))
                    .as(model)
                    .isTrue();
        }
    }
}

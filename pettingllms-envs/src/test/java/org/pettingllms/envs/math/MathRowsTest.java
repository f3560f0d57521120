package org.pettingllms.envs.math;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Math rows: the field names of the common layouts, and errors that name the file, the line and the field. */
class MathRowsTest {
    @TempDir
    Path dir;

    Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void missingAndEmptyFieldsNameTheField() throws Exception {
        Path p = write("m.jsonl", "{\"question\": \"q\", \"answer\": \"1\"}\n{\"question\": \"q2\"}\n");
        assertThatThrownBy(() -> MathRows.load(p))
                .hasMessageContaining("m.jsonl line 2")
                .hasMessageContaining("gt | final_answer | answer | solution");
        Path q = write("e.jsonl", "{\"problem\": \"\", \"answer\": \"1\"}\n");
        assertThatThrownBy(() -> MathRows.load(q))
                .hasMessageContaining("e.jsonl line 1: field 'problem'")
                .hasMessageContaining("expected non-empty text");
        Path s = write("s.jsonl", "{\"problem\": \"p\", \"solution\": \"no box here\"}\n");
        assertThatThrownBy(() -> MathRows.load(s)).hasMessageContaining("field 'solution' has no \\boxed{}");
    }

    @Test
    void mathFieldNamesOfTheCommonLayouts() throws Exception {
        Path p = write(
                "m.jsonl",
                String.join(
                        "\n",
                        "{\"question\": \"gsm\", \"answer\": \"work\\n#### 1,000\"}",
                        "{\"problem\": \"boxed\", \"solution\": \"so \\\\boxed{\\\\frac{1}{2}}\"}",
                        "{\"problem\": \"gt\", \"gt\": 7}",
                        "{\"question\": \"ob\", \"final_answer\": [\"$3$\", \"$4$\"], \"context\": \"Given x.\"}"));
        List<MathRows.MathItem> items = MathRows.load(p);
        assertThat(items).extracting(MathRows.MathItem::answer).containsExactly("1,000", "\\frac{1}{2}", "7", "3, 4");
        assertThat(items.get(3).question()).isEqualTo("Given x.\n\nob");
    }
}

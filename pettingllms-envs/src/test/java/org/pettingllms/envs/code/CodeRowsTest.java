package org.pettingllms.envs.code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.Base64;
import java.util.List;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Code rows: the layouts of APPS, CodeContests and LiveCodeBench, Parquet, and errors that name the field. */
class CodeRowsTest {
    @TempDir
    Path dir;

    Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void testsOfDifferentLengthsAreNamed() throws Exception {
        Path c = write("c.jsonl", "{\"question\": \"q\", \"test_input\": [\"1\"], \"test_output\": [\"1\", \"2\"]}\n");
        assertThatThrownBy(() -> CodeRows.load(c))
                .hasMessageContaining("c.jsonl line 1")
                .hasMessageContaining("'test_input' and 'test_output' differ in length");
    }

    @Test
    void parquetRowsReadLikeJsonl() throws Exception {
        Path jsonl = write(
                "src.jsonl",
                "{\"question\": \"sum\", \"test_input\": [\"1 2\", \"3 4\"], "
                        + "\"test_output\": [\"3\", \"7\"], \"solution\": \"print(sum(map(int, input().split())))\"}\n");
        Path parquet = dir.resolve("code.parquet");
        try (var c = DriverManager.getConnection("jdbc:duckdb:");
                var st = c.createStatement()) {
            st.execute("COPY (SELECT * FROM read_json_auto('" + jsonl + "')) TO '" + parquet + "' (FORMAT PARQUET)");
        }
        List<CodeItem> items = CodeRows.load(parquet);
        assertThat(items).hasSize(1);
        assertThat(items.get(0).tests())
                .containsExactly(new CodeItem.TestCase("1 2", "3"), new CodeItem.TestCase("3 4", "7"));
        assertThat(items.get(0).solution()).contains("sum(map(int");
    }

    @Test
    void codeLayoutsOfAppsCodeContestsAndLiveCodeBench() throws Exception {
        String compressed = zlibBase64("[{\"input\": \"5\\n\", \"output\": \"25\\n\", \"testtype\": \"stdin\"}]");
        Path p = write(
                "code.jsonl",
                String.join(
                        "\n",
                        "{\"problem_id\": 1, \"question\": \"apps\", \"input_output\": \"{\\\"inputs\\\": [\\\"1\\\\n\\\"], "
                                + "\\\"outputs\\\": [\\\"2\\\\n\\\"]}\", \"solutions\": \"[\\\"print(int(input())+1)\\\"]\"}",
                        "{\"problem_id\": 2, \"question\": \"apps call\", \"input_output\": \"{\\\"fn_name\\\": \\\"f\\\", "
                                + "\\\"inputs\\\": [[1]], \\\"outputs\\\": [2]}\"}",
                        "{\"name\": \"cc\", \"description\": \"contests\", \"public_tests\": {\"input\": [\"a\"], \"output\": [\"A\"]},"
                                + " \"private_tests\": {\"input\": [\"b\"], \"output\": [\"B\"]}, \"solutions\": {\"language\":"
                                + " [2, 3], \"solution\": [\"cpp\", \"print(input().upper())\"]}}",
                        "{\"question_id\": \"lcb1\", \"question_content\": \"square\", \"public_test_cases\": "
                                + "\"[{\\\"input\\\": \\\"3\\\\n\\\", \\\"output\\\": \\\"9\\\\n\\\", \\\"testtype\\\": \\\"stdin\\\"}]\","
                                + " \"private_test_cases\": \"" + compressed + "\"}"));
        List<CodeItem> items = CodeRows.load(p);
        assertThat(items).extracting(CodeItem::question).containsExactly("apps", "contests", "square");
        assertThat(items.get(0).solution()).isEqualTo("print(int(input())+1)");
        assertThat(items.get(1).tests()).hasSize(2);
        assertThat(items.get(1).solution()).isEqualTo("print(input().upper())");
        assertThat(items.get(2).tests()).extracting(CodeItem.TestCase::output).containsExactly("9\n", "25\n");
    }

    private static String zlibBase64(String s) {
        Deflater d = new Deflater();
        d.setInput(s.getBytes(StandardCharsets.UTF_8));
        d.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        while (!d.finished()) {
            out.write(buf, 0, d.deflate(buf));
        }
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }
}

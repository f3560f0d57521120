package org.pettingllms.envs.data;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Dataset files: formats, and errors that name the file and the line. */
class DatasetFilesTest {
    @TempDir
    Path dir;

    Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void malformedJsonNamesFileAndLine() throws Exception {
        Path p = write(
                "bad.jsonl", "{\"question\": \"q\", \"answer\": \"1\"}\n\n{\"question\": \"q2\", \"answer\": }\n");
        assertThatThrownBy(() -> DatasetFiles.read(p))
                .isInstanceOf(DatasetException.class)
                .hasMessageContaining("bad.jsonl line 3")
                .hasMessageContaining("not a JSON object");
    }

    @Test
    void missingFilesAndUnknownFormatsAreNamed() throws Exception {
        assertThatThrownBy(() -> DatasetFiles.read(dir.resolve("nope.jsonl"))).hasMessageContaining("does not exist");
        assertThatThrownBy(() -> DatasetFiles.read(write("x.csv", "a,b"))).hasMessageContaining("unknown format");
    }
}

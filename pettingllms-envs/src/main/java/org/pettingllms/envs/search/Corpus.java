package org.pettingllms.envs.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import org.pettingllms.envs.data.DatasetException;

/**
 * A corpus file: JSON Lines of passages, read one line at a time (a Wikipedia corpus does not fit in memory), plain
 * or gzip ({@code .gz}). A line is Search-R1's and FlashRAG's {@code {"id", "contents": "\"Title\"\ntext"}}, or
 * {@code {"id", "title", "text"}}; a line without an id gets its line number. A bad line is an error naming the file,
 * the line and the field.
 */
public final class Corpus {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Corpus() {}

    /** Every passage of {@code file}, in file order, to {@code sink}; the number read. */
    public static long read(Path file, Consumer<Passage> sink) {
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            long line = 0;
            long count = 0;
            for (String text; (text = r.readLine()) != null; ) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                sink.accept(passage(file, line, text));
                count++;
            }
            if (count == 0) {
                throw new DatasetException("corpus " + file + " has no passages");
            }
            return count;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read corpus " + file + ": " + e.getMessage(), e);
        }
    }

    /** The passages of a small corpus file, in memory. */
    public static List<Passage> load(Path file) {
        List<Passage> out = new ArrayList<>();
        read(file, out::add);
        return out;
    }

    static Passage passage(Path file, long line, String text) {
        String where = file.getFileName() + " line " + line;
        JsonNode n;
        try {
            n = JSON.readTree(text);
        } catch (IOException e) {
            throw new DatasetException(where + ": not a JSON object ("
                    + e.getMessage().lines().findFirst().orElse("") + ")");
        }
        if (n == null || !n.isObject()) {
            throw new DatasetException(where + ": not a JSON object");
        }
        JsonNode idNode = n.get("id");
        String id = idNode == null || idNode.isNull() ? Long.toString(line) : idNode.asText();
        if (id.isBlank()) {
            throw new DatasetException(where + ": field 'id' is empty (expected text or a number)");
        }
        JsonNode contents = n.get("contents");
        if (contents != null && contents.isTextual()) {
            return Passage.parse(id, contents.asText());
        }
        JsonNode t = n.get("text");
        if (t != null && t.isTextual()) {
            JsonNode title = n.get("title");
            return new Passage(id, title != null && title.isTextual() ? title.asText() : "", t.asText());
        }
        throw new DatasetException(
                where + ": missing field 'contents' (expected \"\\\"Title\\\"\\ntext\"; or" + " 'title' and 'text')");
    }
}

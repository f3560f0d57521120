package org.pettingllms.core.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code metrics.jsonl}: one JSON object per step with slash-namespaced keys ({@code reward/team/mean},
 * {@code success/rate}, {@code time/rollout_s}). Each line is written and flushed whole, so a killed run leaves
 * only complete lines; a resumed run first drops the lines of steps it will redo.
 */
public final class MetricsLog {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;

    public MetricsLog(Path file) {
        this.file = file;
    }

    public void append(StepReport report) {
        try {
            Files.writeString(
                    file,
                    JSON.writeValueAsString(report.toJson()) + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** Keeps the lines of steps below {@code step} (and drops a torn last line). */
    public void truncateFrom(int step) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        List<String> keep = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            try {
                if (JSON.readTree(line).path("step").asInt(Integer.MAX_VALUE) < step) {
                    keep.add(line);
                }
            } catch (IOException torn) {
                break;
            }
        }
        Files.write(file, keep);
    }

    /** All lines, parsed; a line that is not a step's numbers fails with the file and the line. */
    public static List<StepReport> read(Path file) throws IOException {
        List<StepReport> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank()) {
                try {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> m = JSON.readValue(lines.get(i), Map.class);
                    out.add(StepReport.fromJson(m));
                } catch (IOException | IllegalArgumentException e) {
                    throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
                }
            }
        }
        return out;
    }
}

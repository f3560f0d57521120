package org.pettingllms.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.pettingllms.core.util.AtomicFiles;

/**
 * The finished cells of a {@code table} run, one JSON line each in a file beside the table, written as each cell is
 * measured: an interrupted table resumes ({@code --resume}) without measuring a cell twice. A cell records the
 * command's settings and the hash of the resolved run config it was measured with (model, rates, budget: a game's
 * configs edited between two runs change it); resuming with other settings, or reading a cell whose config has
 * changed, is refused rather than mixing two tables.
 */
final class TableCells {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One measured cell: greedy test success of a method on a game for a run seed; {@code config} the hash of the
     * resolved config it was measured with (absent in cells written before cells recorded it).
     */
    record Cell(String game, long seed, String method, double success, String settings, String config) {}

    private final Path file;
    private final String settings;
    private final Map<String, Cell> cells = new LinkedHashMap<>();

    private TableCells(Path file, String settings) {
        this.file = file;
        this.settings = settings;
    }

    /**
     * The cells file of a run with {@code settings}: with {@code resume}, the cells it already holds (a last line cut
     * short by a crash is dropped); without, a fresh file.
     *
     * @throws IllegalArgumentException when a recorded cell was measured with other settings
     */
    static TableCells open(Path file, String settings, boolean resume) throws IOException {
        TableCells t = new TableCells(file, settings);
        if (!resume || !Files.exists(file)) {
            Files.deleteIfExists(file);
            return t;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            Cell c;
            try {
                c = JSON.readValue(lines.get(i), Cell.class);
            } catch (JacksonException e) {
                if (i == lines.size() - 1) {
                    break; // the write of the last cell was cut short: it is measured again
                }
                throw new IllegalArgumentException(
                        file + " line " + (i + 1) + ": not a table cell (" + e.getOriginalMessage() + ")");
            }
            if (c.game() == null || c.method() == null || c.settings() == null) {
                throw new IllegalArgumentException(
                        file + " line " + (i + 1) + ": not a table cell (no game, method" + " or settings)");
            }
            if (!c.settings().equals(settings)) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": measured with other settings ("
                        + c.settings() + "; now " + settings + "): run without --resume to start the table afresh");
            }
            t.cells.put(key(c.game(), c.seed(), c.method()), c);
        }
        // rewrite without a torn last line, so that appends start on a line of their own
        StringBuilder clean = new StringBuilder();
        for (Cell c : t.cells.values()) {
            clean.append(JSON.writeValueAsString(c)).append('\n');
        }
        AtomicFiles.writeString(file, clean.toString());
        return t;
    }

    /**
     * The recorded success of a cell, if measured.
     *
     * @param config the hash of the config the cell would be measured with now
     * @throws IllegalArgumentException when the cell was measured with another config (or one not recorded)
     */
    OptionalDouble get(String game, long seed, String method, String config) {
        Cell c = cells.get(key(game, seed, method));
        if (c == null) {
            return OptionalDouble.empty();
        }
        if (!config.equals(c.config())) {
            throw new IllegalArgumentException(file + ": " + game + " seed " + seed + " '" + method
                    + "' was measured with "
                    + (c.config() == null ? "a config it did not record (an older table)" : "config " + c.config())
                    + ", now " + config + " (the game's configs changed since): run without --resume to start the"
                    + " table afresh");
        }
        return OptionalDouble.of(c.success());
    }

    /** Records a cell measured with the config of hash {@code config} (appended and flushed to the file at once). */
    void put(String game, long seed, String method, double success, String config) throws IOException {
        Cell c = new Cell(game, seed, method, success, settings, config);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(
                file,
                JSON.writeValueAsString(c) + "\n",
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND,
                StandardOpenOption.SYNC);
        cells.put(key(game, seed, method), c);
    }

    int size() {
        return cells.size();
    }

    private static String key(String game, long seed, String method) {
        return game + "\u0000" + seed + "\u0000" + method;
    }
}

package org.pettingllms.envs.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads dataset rows from JSONL, JSON (an array of objects) and Parquet files. Parquet goes through DuckDB's
 * JDBC driver (in-process; each row is turned into JSON by DuckDB itself), so nested columns arrive as lists
 * and objects exactly as from JSONL.
 */
public final class DatasetFiles {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> ROW = new TypeReference<>() {};

    private DatasetFiles() {}

    public static List<Row> read(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new DatasetException("dataset file " + file.toAbsolutePath() + " does not exist");
        }
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".jsonl") || name.endsWith(".ndjson")) {
            return jsonl(file);
        }
        if (name.endsWith(".json")) {
            return jsonArray(file);
        }
        if (name.endsWith(".parquet")) {
            return parquet(file);
        }
        throw new DatasetException("dataset file " + file + ": unknown format (expected .jsonl, .json or .parquet)");
    }

    private static List<Row> jsonl(Path file) {
        List<Row> rows = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long line = 0;
            for (String text; (text = r.readLine()) != null; ) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                rows.add(new Row(file, line, parseObject(text, file, line)));
            }
        } catch (IOException e) {
            throw new DatasetException("cannot read dataset file " + file + ": " + e.getMessage(), e);
        }
        return rows;
    }

    private static List<Row> jsonArray(Path file) {
        try {
            List<Map<String, Object>> all = JSON.readValue(file.toFile(), new TypeReference<>() {});
            List<Row> rows = new ArrayList<>(all.size());
            for (int i = 0; i < all.size(); i++) {
                rows.add(new Row(file, i + 1, all.get(i)));
            }
            return rows;
        } catch (IOException e) {
            throw new DatasetException(
                    "dataset file " + file + " is not a JSON array of objects: " + e.getMessage(), e);
        }
    }

    private static List<Row> parquet(Path file) {
        List<Row> rows = new ArrayList<>();
        String sql = "SELECT to_json(t)::VARCHAR FROM read_parquet('"
                + file.toAbsolutePath().toString().replace("'", "''") + "') AS t";
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                PreparedStatement st = c.prepareStatement(sql);
                ResultSet rs = st.executeQuery()) {
            long row = 0;
            while (rs.next()) {
                row++;
                rows.add(new Row(file, row, parseObject(rs.getString(1), file, row)));
            }
        } catch (SQLException e) {
            throw new DatasetException("cannot read Parquet file " + file + ": " + e.getMessage(), e);
        }
        return rows;
    }

    private static Map<String, Object> parseObject(String text, Path file, long line) {
        try {
            Map<String, Object> m = JSON.readValue(text, ROW);
            if (m == null) {
                throw new DatasetException(
                        file.getFileName() + " line " + line + ": expected a JSON object, found null");
            }
            return m;
        } catch (JsonProcessingException e) {
            throw new DatasetException(
                    file.getFileName() + " line " + line + ": not a JSON object (" + e.getOriginalMessage() + ")", e);
        }
    }
}

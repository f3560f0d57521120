package org.pettingllms.envs.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One dataset row with where it came from, so that every complaint about it names the file, line and field.
 *
 * @param file   the dataset file
 * @param line   1-based line (JSONL) or row number (Parquet, JSON arrays)
 * @param fields the row's fields as JSON values (String, Number, Boolean, List, Map, null)
 */
public record Row(Path file, long line, Map<String, Object> fields) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public String where() {
        return file.getFileName() + " line " + line;
    }

    public DatasetException error(String field, String problem) {
        return new DatasetException(where() + ": field '" + field + "' " + problem);
    }

    /** The first of {@code names} present with a non-null value. */
    public Optional<String> firstPresent(String... names) {
        for (String n : names) {
            if (fields.get(n) != null) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    /** A required non-blank text field, one of {@code names} (numbers are accepted and written as text). */
    public String text(String... names) {
        String name = firstPresent(names)
                .orElseThrow(() -> new DatasetException(
                        where() + ": missing field " + String.join(" | ", names) + " (expected text)"));
        return textOf(name);
    }

    public String textOf(String name) {
        Object v = fields.get(name);
        if (v instanceof String s && !s.isBlank()) {
            return s;
        }
        if (v instanceof Number n) {
            return n.toString();
        }
        throw error(name, "is " + describe(v) + " (expected non-empty text)");
    }

    public Optional<String> optionalText(String name) {
        Object v = fields.get(name);
        return v == null || (v instanceof String s && s.isBlank()) ? Optional.empty() : Optional.of(textOf(name));
    }

    /** A list field; a string holding a JSON list is accepted too (APPS and LiveCodeBench store JSON as text). */
    public List<?> list(String name) {
        Object v = json(name);
        if (v instanceof List<?> l) {
            return l;
        }
        throw error(name, "is " + describe(v) + " (expected a list)");
    }

    /** An object field; a string holding a JSON object is accepted too. */
    public Map<?, ?> object(String name) {
        Object v = json(name);
        if (v instanceof Map<?, ?> m) {
            return m;
        }
        throw error(name, "is " + describe(v) + " (expected an object)");
    }

    private Object json(String name) {
        Object v = fields.get(name);
        if (v instanceof String s) {
            try {
                return JSON.readValue(s, Object.class);
            } catch (JsonProcessingException e) {
                throw error(name, "holds text that is not JSON: " + e.getOriginalMessage());
            }
        }
        return v;
    }

    public static String describe(Object v) {
        if (v == null) {
            return "missing";
        }
        String s = String.valueOf(v);
        return v.getClass().getSimpleName() + " '" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "'";
    }
}

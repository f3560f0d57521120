package org.pettingllms.core.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Loads a {@link RunConfig}: the run's YAML is merged over {@code defaults.yaml}, then {@code --set a.b=c}
 * overrides are applied, then the tree is bound to records. Unknown keys, wrong types and missing values fail
 * with a {@link ConfigException} naming the source, the key path and what is allowed.
 */
public final class ConfigLoader {
    static final YAMLMapper MAPPER = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .build();

    private ConfigLoader() {}

    public static RunConfig load(Path file, List<String> overrides) {
        String yaml;
        try {
            yaml = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file not found: " + file);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        return fromYaml(yaml, file.toString(), overrides);
    }

    public static RunConfig fromYaml(String yaml, String source, List<String> overrides) {
        JsonNode user = parse(yaml, source);
        JsonNode tree = merge(defaults(), user);
        for (String o : overrides) {
            applyOverride((ObjectNode) tree, o);
        }
        return bind(tree, RunConfig.class, "", source);
    }

    /**
     * One section of the defaults ({@code defaults.yaml}) as its record, e.g. {@code defaultSection("engine",
     * RunConfig.Engine.class)}: for code that needs a section's settings without a whole run config.
     */
    public static <T> T defaultSection(String key, Class<T> type) {
        JsonNode section = defaults().get(key);
        if (section == null) {
            throw new IllegalArgumentException("no section '" + key + "' in the defaults");
        }
        return bind(section, type, key + ".", "defaults.yaml");
    }

    /** The resolved tree of a config, for {@code run.json}. */
    public static JsonNode toTree(RunConfig config) {
        return MAPPER.valueToTree(config);
    }

    /**
     * Binds {@code tree} to {@code type}; errors name {@code prefix + path} inside {@code source}. Task factories
     * use it for their options.
     */
    public static <T> T bind(JsonNode tree, Class<T> type, String prefix, String source) {
        try {
            return MAPPER.treeToValue(tree, type);
        } catch (JsonMappingException e) {
            throw new ConfigException(describe(e, prefix, source), e);
        } catch (JacksonException e) {
            throw new ConfigException(source + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Binds a task's options map over the defaults given by {@code defaults} (an instance of the record). */
    public static <T> T bindOptions(Map<String, Object> options, T defaults, String prefix, String source) {
        JsonNode tree = merge(MAPPER.valueToTree(defaults), MAPPER.valueToTree(options));
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) defaults.getClass();
        return bind(tree, type, prefix, source);
    }

    static JsonNode parse(String yaml, String source) {
        try {
            JsonNode node = MAPPER.readTree(yaml);
            if (node == null || node.isMissingNode() || node.isNull()) {
                return JsonNodeFactory.instance.objectNode();
            }
            if (!node.isObject()) {
                throw new ConfigException(
                        source + ": expected a YAML mapping at the top level, found " + node.getNodeType());
            }
            return node;
        } catch (JacksonException e) {
            JsonLocation loc = e.getLocation();
            String where = loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
            throw new ConfigException(source + where + ": invalid YAML: " + e.getOriginalMessage(), e);
        }
    }

    static JsonNode defaults() {
        try (InputStream in = ConfigLoader.class.getResourceAsStream("defaults.yaml")) {
            if (in == null) {
                throw new IllegalStateException("defaults.yaml missing from the classpath");
            }
            return MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deep merge: mappings merge key by key; any other value (scalars, lists) replaces. */
    static JsonNode merge(JsonNode base, JsonNode over) {
        if (base instanceof ObjectNode b && over instanceof ObjectNode o) {
            ObjectNode out = b.deepCopy();
            o.fields().forEachRemaining(e -> out.set(e.getKey(), merge(out.get(e.getKey()), e.getValue())));
            return out;
        }
        return over.deepCopy();
    }

    /** Applies {@code a.b.c=value}; the value is read as YAML, so numbers, booleans and [lists] keep their type. */
    static void applyOverride(ObjectNode root, String override) {
        int eq = override.indexOf('=');
        if (eq <= 0) {
            throw new ConfigException("--set '" + override + "': expected key.path=value");
        }
        String key = override.substring(0, eq).trim();
        String raw = override.substring(eq + 1);
        JsonNode value;
        try {
            value = raw.isBlank() ? TextNode.valueOf(raw) : MAPPER.readTree(raw);
        } catch (JacksonException e) {
            throw new ConfigException(
                    "--set '" + override + "': the value is not valid YAML: " + e.getOriginalMessage());
        }
        String[] parts = key.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            JsonNode child = node.get(parts[i]);
            if (child == null || child.isNull()) {
                child = node.putObject(parts[i]);
            } else if (!child.isObject()) {
                throw new ConfigException("--set '" + override + "': '" + String.join(".", Arrays.copyOf(parts, i + 1))
                        + "' is a value, not a section");
            }
            node = (ObjectNode) child;
        }
        node.set(parts[parts.length - 1], value);
    }

    private static String describe(JsonMappingException e, String prefix, String source) {
        String path = prefix
                + e.getPath().stream()
                        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                        .collect(Collectors.joining("."))
                        .replace(".[", "[");
        String head = source + ": config key '" + path + "'";
        if (e instanceof UnrecognizedPropertyException u) {
            return source + ": unknown config key '" + path + "'; allowed keys here: "
                    + sorted(u.getKnownPropertyIds());
        }
        if (e instanceof InvalidFormatException f) {
            Class<?> t = f.getTargetType();
            String allowed = t != null && t.isEnum()
                    ? "one of "
                            + Arrays.stream(t.getEnumConstants())
                                    .map(c -> c.toString().toLowerCase())
                                    .toList()
                    : typeName(t);
            return head + ": expected " + allowed + ", got '" + f.getValue() + "'";
        }
        if (e instanceof ValueInstantiationException v && v.getCause() != null) {
            return head + ": " + v.getCause().getMessage();
        }
        if (e instanceof MismatchedInputException m) {
            String msg = m.getOriginalMessage();
            if (msg.contains("Null value for creator property") || msg.contains("Missing creator property")) {
                return head + " is required but has no value";
            }
            return head + ": expected " + typeName(m.getTargetType());
        }
        return head + ": " + e.getOriginalMessage();
    }

    private static String sorted(Collection<Object> ids) {
        return ids.stream().map(String::valueOf).sorted().toList().toString();
    }

    private static String typeName(Class<?> t) {
        if (t == null) {
            return "a value";
        }
        if (t == int.class || t == Integer.class || t == long.class || t == Long.class) {
            return "an integer";
        }
        if (t == double.class || t == Double.class || t == float.class) {
            return "a number";
        }
        if (t == boolean.class || t == Boolean.class) {
            return "true or false";
        }
        if (t == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(t)) {
            return "a list";
        }
        if (Map.class.isAssignableFrom(t) || t.isRecord()) {
            return "a mapping";
        }
        return t.getSimpleName();
    }
}

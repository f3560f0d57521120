package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;

/**
 * Where saved states live ({@code <dir>/<model_id>/weights/<name>}, so a restarted server loads what an earlier one
 * saved), the {@code tinker://} paths clients name them by, which adapter saved them, and how many bytes they hold
 * (the server's quota). Every name a client gives is one path segment of plain characters: nothing it sends can
 * reach outside the directory.
 */
final class CheckpointPaths {
    /** A name a client gives (a checkpoint, an adapter): letters, digits, '_' and '-', at most 255. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,255}");
    /** The file beside a model's saved states that names the adapter that saved them. */
    private static final String OWNER = "adapter";

    private final Path dir;

    CheckpointPaths(Path dir) {
        this.dir = dir;
    }

    static boolean isName(String name) {
        return NAME.matcher(name).matches();
    }

    /** The name in {@code body}'s {@code field}, refused unless {@link #isName}. */
    static String name(JsonNode body, String field) {
        String name = Fields.text(body, field, "");
        if (!isName(name)) {
            throw BadRequest.field(field, "a name of letters, digits, '_' and '-' (at most 255), got '" + name + "'");
        }
        return name;
    }

    /** Where client {@code modelId}'s checkpoint {@code name} is saved. */
    Path weights(String modelId, String name) {
        return dir.resolve(modelId).resolve("weights").resolve(name);
    }

    /** The file that names the adapter whose client saved {@code modelId}'s checkpoints. */
    Path owner(String modelId) {
        return dir.resolve(modelId).resolve(OWNER);
    }

    /** The path a client names checkpoint {@code name} of client {@code modelId} by. */
    static String weightsPath(String modelId, String name) {
        return "tinker://" + modelId + "/weights/" + name;
    }

    /** The path a client names sampler weights {@code name} of client {@code modelId} by. */
    static String samplerPath(String modelId, String name) {
        return "tinker://" + modelId + "/sampler_weights/" + name;
    }

    /**
     * The saved state {@code path} ({@code tinker://<model_id>/weights/<name>}) names, for a client of {@code adapter}:
     * a 400 for a malformed path, a 404 for one not saved, a 403 for another adapter's.
     */
    Path checkpoint(String path, String adapter) throws IOException {
        String[] parts = path.startsWith("tinker://") ? path.substring(9).split("/") : new String[0];
        if (parts.length != 3 || !parts[1].equals("weights") || !isName(parts[0]) || !isName(parts[2])) {
            throw BadRequest.field("path", "expected tinker://<model_id>/weights/<name>, got '" + path + "'");
        }
        Path saved = weights(parts[0], parts[2]);
        if (!Files.isDirectory(saved)) {
            throw new BadRequest(404, "path", "no checkpoint " + path + " under " + dir);
        }
        Path owner = owner(parts[0]);
        if (Files.isRegularFile(owner) && !Files.readString(owner).equals(adapter)) {
            throw new BadRequest(
                    403,
                    "path",
                    "checkpoint " + path + " was saved by a client of another adapter; a client loads its own"
                            + " adapter's states");
        }
        return saved;
    }

    /** Bytes of the saved states under the server's directory. */
    long savedBytes() {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (IOException gone) {
                            return 0;
                        }
                    })
                    .sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }
}

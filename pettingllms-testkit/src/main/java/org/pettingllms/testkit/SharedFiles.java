package org.pettingllms.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the shared fixtures and datasets, which live in {@code ../shared} beside the project root and are never
 * copied into the project. Tests run from a module directory, so the search walks up from the working directory.
 */
public final class SharedFiles {
    private SharedFiles() {}

    public static Path shared() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path candidate = d.resolve("shared");
            if (Files.isDirectory(candidate.resolve("fixtures"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("no shared/fixtures folder above " + dir
                + "; the shared fixtures must sit beside the project root (../shared)");
    }

    public static Path fixture(String name) {
        return shared().resolve("fixtures").resolve(name);
    }

    /** The project's root directory (the one holding {@code models/} and {@code configs/}), found the same way. */
    public static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("models")) && Files.isDirectory(d.resolve("configs"))) {
                return d;
            }
        }
        throw new IllegalStateException("no project root (a folder with models/ and configs/) above " + dir);
    }
}

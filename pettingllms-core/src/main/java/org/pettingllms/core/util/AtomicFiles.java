package org.pettingllms.core.util;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Atomic file replacement: content goes to a temporary file beside the target, which is then renamed over it, so
 * readers (and a resumed run) see the old file or the new one, never half of one.
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    /** A temporary file beside {@code target}, to be handed to {@link #publish}. */
    public static Path tempBeside(Path target) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        return Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
    }

    /** Renames {@code tmp} over {@code target}, readable by all like any other file the user writes. */
    public static void publish(Path tmp, Path target) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    public static void writeString(Path target, String content) throws IOException {
        Path tmp = tempBeside(target);
        try {
            Files.writeString(tmp, content);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        publish(tmp, target);
    }
}

package org.pettingllms.core.util;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;

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

    /** Writes a folder's content into the folder it is given. */
    @FunctionalInterface
    public interface FolderWriter {
        void write(Path folder) throws IOException;
    }

    /**
     * Replaces the folder {@code dir} with what {@code write} puts into a new folder beside it: the old folder is
     * moved aside and the new one renamed into place, so a crash leaves the old folder or the new one (a
     * checkpoint is never half written).
     */
    public static void replaceFolder(Path dir, FolderWriter write) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempDirectory(parent, dir.getFileName() + ".tmp");
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        try {
            write.write(tmp);
        } catch (IOException | RuntimeException e) {
            deleteTree(tmp);
            throw e;
        }
        Path old = parent.resolve(dir.getFileName() + ".old");
        deleteTree(old);
        if (Files.exists(dir)) {
            Files.move(dir, old, StandardCopyOption.ATOMIC_MOVE);
        }
        Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
        deleteTree(old);
    }

    /** Deletes {@code dir} and everything in it, deepest first; nothing when it does not exist. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
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

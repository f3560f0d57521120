package org.pettingllms.envs.sql;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;

/**
 * The folder that holds SQLite's temporary files for this process, and how much they hold. SQLite's temporary folder
 * is one setting for the whole process ({@code PRAGMA temp_store_directory}), set here once before the first query;
 * SQLite unlinks each temporary file right after opening it, so its size is read through this process's open file
 * descriptors ({@code /proc/self/fd}), not by listing the folder.
 */
final class TempFiles {
    private static volatile Path dir;

    private TempFiles() {}

    /** Creates the folder and points SQLite at it, once. */
    static void init() {
        if (dir != null) {
            return;
        }
        synchronized (TempFiles.class) {
            if (dir != null) {
                return;
            }
            try {
                Path d = Files.createTempDirectory("pettingllms-sqlite-").toAbsolutePath();
                try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
                        Statement s = c.createStatement()) {
                    s.execute("PRAGMA temp_store_directory = '" + d.toString().replace("'", "''") + "'");
                }
                Runtime.getRuntime().addShutdownHook(new Thread(() -> d.toFile().delete()));
                dir = d;
            } catch (IOException | SQLException e) {
                throw new IllegalStateException(
                        "cannot make a folder for SQLite's temporary files in " + System.getProperty("java.io.tmpdir")
                                + ": " + e.getMessage(),
                        e);
            }
        }
    }

    /** The folder, once {@link #init} ran. */
    static Path dir() {
        return dir;
    }

    /** Bytes in SQLite's temporary files that this process holds open now (0 where /proc is missing). */
    static long openBytes() {
        Path d = dir;
        if (d == null) {
            return 0;
        }
        String prefix = d + "/";
        long sum = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith(prefix)) {
                        sum += Files.size(fd);
                    }
                } catch (IOException | RuntimeException closed) {
                    // closed while we looked
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return sum;
    }
}

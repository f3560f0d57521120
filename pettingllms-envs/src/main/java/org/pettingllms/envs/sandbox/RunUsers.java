package org.pettingllms.envs.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * The user id a namespaced run's program runs as (root trainers, {@link Isolation#NAMESPACES}), one free id a run,
 * machine-wide. The kernel counts a user's processes together (the process-count limit), so two runs sharing an id
 * share a budget: with an id per sandbox slot, two trainers on one machine (or a trainer beside the tests) ran their
 * programs as the same users, and one's fork loop left the other's simulator unable to fork. An id is claimed by
 * locking its file in a root-only directory; the lock ends with the run, or with the process that held it.
 */
final class RunUsers {
    /** The ids used: below systemd's dynamic users (61184-65519), above Debian's normal users. */
    static final int FIRST = 61000;

    static final int COUNT = 184;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private RunUsers() {}

    /** A claimed id; closing it frees the id. */
    record Claim(int uid, FileChannel channel, FileLock lock) implements AutoCloseable {
        @Override
        public void close() {
            try {
                channel.close(); // releases the lock
            } catch (IOException e) {
                // the process's exit releases it in any case
            }
        }
    }

    /** A free id, waiting while every one is held (at most {@link #COUNT} runs at once on the machine). */
    static Claim claim() {
        Path dir = directoryOnce();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (int uid = FIRST; uid < FIRST + COUNT; uid++) {
                Claim c = tryClaim(dir, uid);
                if (c != null) {
                    return c;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new SandboxException("every sandbox user id (" + FIRST + "-" + (FIRST + COUNT - 1)
                        + ") is held by a run on this machine; waited " + WAIT.toSeconds() + " s");
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException("interrupted while waiting for a sandbox user id", e);
            }
        }
    }

    private static Claim tryClaim(Path dir, int uid) {
        FileChannel ch = null;
        try {
            ch = FileChannel.open(
                    dir.resolve("uid-" + uid + ".lock"),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            FileLock lock = ch.tryLock();
            if (lock != null) {
                return new Claim(uid, ch, lock);
            }
        } catch (OverlappingFileLockException held) {
            // held by this process: another run of ours
        } catch (IOException e) {
            throw new SandboxException("cannot lock a sandbox user id in " + dir + ": " + e.getMessage(), e);
        }
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing was held
        }
        return null;
    }

    private static volatile Path dir;

    /** The lock directory, made and checked at the first claim that succeeds (a failure is its one line each time). */
    private static Path directoryOnce() {
        Path d = dir;
        if (d == null) {
            synchronized (RunUsers.class) {
                d = dir;
                if (d == null) {
                    d = directory();
                    dir = d;
                }
            }
        }
        return d;
    }

    /** {@code /run/pettingllms-sandbox} (else in the temporary directory): made by root, for root only. */
    private static Path directory() {
        Path base = Files.isDirectory(Path.of("/run")) && Files.isWritable(Path.of("/run"))
                ? Path.of("/run")
                : Path.of(System.getProperty("java.io.tmpdir"));
        Path dir = base.resolve("pettingllms-sandbox");
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.createDirectory(
                            dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another trainer made it
                }
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                    || (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS) != 0) {
                throw new SandboxException(dir + " must be a directory of root's (where sandbox user ids are claimed)");
            }
            return dir;
        } catch (IOException e) {
            throw new SandboxException("cannot make " + dir + " for the sandbox's user ids: " + e.getMessage(), e);
        }
    }
}

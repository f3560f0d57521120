package org.pettingllms.hub;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One download of a blob at a time: two downloads appending to one {@code .incomplete} file would corrupt it. A lock
 * on {@code .locks/<repo>/<etag>.lock} (where huggingface_hub keeps its own) holds other processes off, a lock per
 * path in memory other threads of this one (a JVM may not take the same file lock twice).
 */
final class BlobLock implements AutoCloseable {
    private static final ConcurrentHashMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

    private final ReentrantLock local;
    private final FileChannel channel;
    private final FileLock lock;

    private BlobLock(ReentrantLock local, FileChannel channel, FileLock lock) {
        this.local = local;
        this.channel = channel;
        this.lock = lock;
    }

    /** Waits for the lock of {@code file}. */
    static BlobLock acquire(Path file) throws IOException {
        ReentrantLock local = IN_PROCESS.computeIfAbsent(file.toAbsolutePath().normalize(), p -> new ReentrantLock());
        local.lock();
        FileChannel channel = null;
        try {
            Files.createDirectories(file.getParent());
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            return new BlobLock(local, channel, channel.lock());
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            local.unlock();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
            channel.close();
        } finally {
            local.unlock();
        }
    }
}

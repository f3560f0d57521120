package org.pettingllms.hub;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.pettingllms.hub.HubException.Reason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One blob into the cache. The bytes go to {@code blobs/<etag>.incomplete}; a partial file left by a cut connection
 * or an earlier run is resumed with {@code Range: bytes=N-} (206 appends, 200 means the server sent the whole file:
 * start over); the complete file is checked against the etag (sha256 for LFS, git's blob sha1 otherwise) and only
 * then renamed to {@code blobs/<etag>}, so a snapshot never links to a file that is partial or wrong.
 */
final class Download {
    private static final Logger LOG = LoggerFactory.getLogger(Download.class);
    private static final int BUFFER = 1 << 18;

    /** Free bytes for new files in a folder (tests pretend a full disk). */
    @FunctionalInterface
    interface FreeSpace {
        FreeSpace FILE_STORE = dir -> Files.getFileStore(dir).getUsableSpace();

        long usable(Path dir) throws IOException;
    }

    private final HubHttp http;
    private final HubCache cache;
    private final FreeSpace freeSpace;
    private final Duration stallLimit;

    Download(HubHttp http, HubCache cache, FreeSpace freeSpace, Duration stallLimit) {
        this.http = http;
        this.cache = cache;
        this.freeSpace = freeSpace;
        this.stallLimit = stallLimit;
    }

    /** Makes sure the blob of {@code meta} is in the cache, downloading (or finishing) it if not. */
    void blob(RepoId repo, String revision, FileMeta meta, DownloadListener listener) {
        Path blob = cache.blob(repo, meta.etag());
        if (Files.isRegularFile(blob)) {
            return;
        }
        Path partial = cache.incomplete(repo, meta.etag());
        try (BlobLock lock = BlobLock.acquire(cache.lockFile(repo, meta.etag()))) {
            if (Files.isRegularFile(blob)) {
                return; // another process or thread finished it while we waited
            }
            Files.createDirectories(partial.getParent());
            long have = Files.exists(partial) ? Files.size(partial) : 0;
            if (have > meta.size()) {
                truncate(partial);
                have = 0;
            }
            checkSpace(repo, meta, partial, have);
            transfer(repo, revision, meta, partial, have, listener);
            verify(repo, meta, partial);
            Files.move(partial, blob, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            if (diskFull(e)) {
                throw new HubException(
                        Reason.DISK_FULL,
                        "no space left on the device while downloading '"
                                + meta.path() + "' of " + repo + " (" + ByteSize.format(meta.size()) + ") into "
                                + partial.getParent() + ": free " + ByteSize.format(meta.size() - sizeOf(partial))
                                + " and run again to resume from " + partial.getFileName(),
                        e);
            }
            throw HubCache.io("cannot write '" + meta.path() + "' of " + repo + " to " + partial, e);
        }
    }

    /** Whether an I/O error is a full disk (Linux and macOS say ENOSPC so; Windows in its own words). */
    static boolean diskFull(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("not enough space on the disk"))) {
                return true;
            }
        }
        return false;
    }

    private void checkSpace(RepoId repo, FileMeta meta, Path partial, long have) throws IOException {
        long needed = meta.size() - have;
        long free = freeSpace.usable(partial.getParent());
        if (free < needed) {
            throw new HubException(
                    Reason.DISK_FULL,
                    "not enough disk space for '" + meta.path() + "' of " + repo
                            + ": it needs " + ByteSize.format(needed) + " more, " + partial.getParent() + " has "
                            + ByteSize.format(free) + " free (HF_HUB_CACHE moves the cache)");
        }
    }

    /** Gets the bytes from {@code have} on into {@code partial}, resuming after cut connections. */
    private void transfer(
            RepoId repo, String revision, FileMeta meta, Path partial, long have, DownloadListener listener)
            throws IOException {
        HubHttp.Target target = new HubHttp.Target(repo, revision, meta.path());
        Retries retries = http.retries();
        int failed = 0;
        listener.progress(meta.path(), have, meta.size());
        while (have < meta.size()) {
            if (have > 0) {
                LOG.info("resuming {} of {} from byte {}", meta.path(), repo, have);
            }
            HttpResponse<InputStream> r = http.download(meta, have, target);
            int code = r.statusCode();
            long start = code == 206 ? rangeStart(r) : 0;
            if (code == 416 || (code == 206 && start != have)) {
                // the server refused or misread the range: the whole file, once more
                HubHttp.close(r);
                truncate(partial);
                have = 0;
                if (++failed >= retries.attempts()) {
                    throw new HubException(
                            Reason.PROTOCOL,
                            "the server answered range requests for '" + meta.path() + "' of " + repo + " wrongly "
                                    + failed + " times (HTTP " + code + ")");
                }
                continue;
            }
            if (code == 200 && have > 0) {
                LOG.info("the server sent all of {} again: starting it over", meta.path());
                truncate(partial);
                have = 0;
                listener.progress(meta.path(), 0, meta.size());
            }
            long before = have;
            IOException cut = null;
            try (StallGuard guard = new StallGuard(stallLimit);
                    OutputStream out = new FileOutputStream(partial.toFile(), true)) {
                InputStream in = r.body();
                byte[] buf = new byte[BUFFER];
                while (true) {
                    int n;
                    try {
                        n = in.read(buf);
                    } catch (IOException e) {
                        cut = guard.fired() ? new IOException("no data for " + stallLimit.toSeconds() + " s", e) : e;
                        break;
                    }
                    if (n < 0) {
                        break;
                    }
                    guard.progressed();
                    out.write(buf, 0, n);
                    have += n;
                    if (have > meta.size()) {
                        throw tooLong(repo, meta, partial);
                    }
                    listener.progress(meta.path(), have, meta.size());
                }
            } finally {
                HubHttp.close(r);
            }
            if (have < meta.size()) {
                // a cut connection (or a body that ended early): resume; progress resets the count
                failed = have > before ? 1 : failed + 1;
                String why = cut == null ? "the connection closed early" : String.valueOf(cut.getMessage());
                if (failed >= retries.attempts()) {
                    throw new HubException(
                            Reason.UNAVAILABLE,
                            "the download of '" + meta.path() + "' of " + repo
                                    + " from " + meta.location().getHost() + " stopped at " + ByteSize.format(have)
                                    + " of "
                                    + ByteSize.format(meta.size()) + " " + failed + " times in a row (" + why
                                    + "); run again to resume",
                            cut);
                }
                LOG.warn("{} of {}: {} after {} of {} bytes; resuming", meta.path(), repo, why, have, meta.size());
                HubHttp.pause(retries.delay(failed));
            }
        }
    }

    /** The etag check; a mismatch deletes the partial file, whose bytes cannot be trusted to resume from. */
    private static void verify(RepoId repo, FileMeta meta, Path partial) throws IOException {
        long size = Files.size(partial);
        String got = Digests.of(meta.check(), partial);
        if (size == meta.size() && (got == null || got.equals(meta.etag()))) {
            if (got == null) {
                LOG.warn(
                        "'{}' of {}: the etag '{}' is not a sha256 or git sha1; only its size was checked",
                        meta.path(),
                        repo,
                        meta.etag());
            }
            return;
        }
        Files.deleteIfExists(partial);
        String expected = got == null ? ByteSize.format(meta.size()) : meta.etag();
        String actual = got == null ? ByteSize.format(size) : got;
        throw new HubException(
                Reason.CHECKSUM,
                "the bytes downloaded for '" + meta.path() + "' of " + repo
                        + " do not match what the Hub announced ("
                        + (got == null
                                ? "size"
                                : meta.check().name().toLowerCase().replace('_', '-')) + " " + expected + ", got "
                        + actual + "); the download was deleted: run again");
    }

    private static HubException tooLong(RepoId repo, FileMeta meta, Path partial) throws IOException {
        Files.deleteIfExists(partial);
        return new HubException(
                Reason.CHECKSUM,
                "the server sent more than the " + meta.size() + " bytes announced" + " for '" + meta.path() + "' of "
                        + repo + "; the download was deleted: run again");
    }

    /** The first byte of a 206's {@code Content-Range: bytes START-END/TOTAL}, or -1 when it has none. */
    private static long rangeStart(HttpResponse<?> r) {
        String cr = r.headers().firstValue("Content-Range").orElse("");
        try {
            int space = cr.indexOf(' ');
            int dash = cr.indexOf('-');
            return space > 0 && dash > space
                    ? Long.parseLong(cr.substring(space + 1, dash).strip())
                    : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void truncate(Path partial) throws IOException {
        try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
    }

    private static long sizeOf(Path p) {
        try {
            return Files.exists(p) ? Files.size(p) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}

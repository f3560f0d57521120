package org.pettingllms.hub;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The cache as huggingface_hub lays it out, so that either side uses what the other downloaded:
 * <pre>
 * &lt;root&gt;/models--org--name/
 *     blobs/&lt;etag&gt;                 file contents, named by sha256 (LFS) or git blob sha1
 *     blobs/&lt;etag&gt;.incomplete      a download under way, resumed from where it stopped
 *     refs/&lt;revision&gt;             the commit sha the branch or tag pointed to when last fetched
 *     snapshots/&lt;commit&gt;/&lt;path&gt;   relative symlinks to ../../blobs/&lt;etag&gt; (one more ../ per folder)
 * &lt;root&gt;/.locks/models--org--name/&lt;etag&gt;.lock
 * </pre>
 * Every change is atomic: a file is written under a temporary name and renamed, a link is made under a temporary
 * name and renamed over, so a reader (or a concurrent download) never sees half of one.
 */
public final class HubCache {
    private final Path root;

    public HubCache(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    public Path root() {
        return root;
    }

    public Path repoDir(RepoId repo) {
        return root.resolve(repo.folderName());
    }

    public Path blob(RepoId repo, String etag) {
        return repoDir(repo).resolve("blobs").resolve(etag);
    }

    /** Where a blob's download is written until it is complete and verified. */
    public Path incomplete(RepoId repo, String etag) {
        return repoDir(repo).resolve("blobs").resolve(etag + ".incomplete");
    }

    Path lockFile(RepoId repo, String etag) {
        return root.resolve(".locks").resolve(repo.folderName()).resolve(etag + ".lock");
    }

    public Path snapshotDir(RepoId repo, String commit) {
        return repoDir(repo).resolve("snapshots").resolve(commit);
    }

    /** A file's place in a snapshot (a link once it is there). */
    public Path pointer(RepoId repo, String commit, String path) {
        return snapshotDir(repo, commit).resolve(RepoPaths.checkRelative(path, "file in " + repo));
    }

    /** The commit {@code refs/<revision>} holds, if the revision was fetched before. */
    public Optional<String> readRef(RepoId repo, String revision) {
        Path ref = refFile(repo, revision);
        try {
            return Files.isRegularFile(ref)
                    ? Optional.of(Files.readString(ref, StandardCharsets.UTF_8).strip())
                    : Optional.empty();
        } catch (IOException e) {
            throw io("cannot read " + ref, e);
        }
    }

    /**
     * Records that {@code revision} is at {@code commit}. Nothing for a commit sha (it names itself), nothing when
     * the ref already says so (a read-only cache stays usable).
     */
    public void writeRef(RepoId repo, String revision, String commit) {
        if (revision.equals(commit)
                || readRef(repo, revision).filter(commit::equals).isPresent()) {
            return;
        }
        Path ref = refFile(repo, revision);
        try {
            Files.createDirectories(ref.getParent());
            Path tmp = ref.resolveSibling(
                    ref.getFileName() + "." + UUID.randomUUID().toString().substring(0, 8) + ".tmp");
            Files.writeString(tmp, commit, StandardCharsets.UTF_8);
            Files.move(tmp, ref, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw io("cannot write " + ref, e);
        }
    }

    /** The commit the cache has for {@code ref}: the sha itself, or what {@code refs/<revision>} holds. */
    public Optional<String> cachedCommit(HubRef ref) {
        if (ref.pinned()) {
            return Files.isDirectory(snapshotDir(ref.repo(), ref.revision()))
                    ? Optional.of(ref.revision())
                    : Optional.empty();
        }
        return readRef(ref.repo(), ref.revision());
    }

    /** Whether the snapshot has {@code path} and its link leads to a blob (a dangling link does not count). */
    public boolean hasFile(RepoId repo, String commit, String path) {
        return Files.isRegularFile(pointer(repo, commit, path));
    }

    /** The files of a cached snapshot, {@code /}-separated, sorted; links to missing blobs left out. */
    public List<String> snapshotFiles(RepoId repo, String commit) {
        Path dir = snapshotDir(repo, commit);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p)
                            .toString()
                            .replace(dir.getFileSystem().getSeparator(), "/"))
                    .filter(p -> !p.endsWith(".tmp"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw io("cannot list " + dir, e);
        }
    }

    /**
     * Puts {@code path} into the snapshot as a relative link to its blob ({@code ../../blobs/<etag>}, one more
     * {@code ../} per folder of the path), as huggingface_hub does, so that the cache can be moved whole. The link is
     * made under a temporary name and renamed over any old one. Where links cannot be made, the blob is copied.
     */
    public Path link(RepoId repo, String commit, String path, String etag) {
        Path pointer = pointer(repo, commit, path);
        Path blob = blob(repo, etag);
        Path tmp = pointer.resolveSibling(
                pointer.getFileName() + "." + UUID.randomUUID().toString().substring(0, 8) + ".tmp");
        try {
            Files.createDirectories(pointer.getParent());
            try {
                Files.createSymbolicLink(tmp, pointer.getParent().relativize(blob));
            } catch (FileAlreadyExistsException e) {
                throw e;
            } catch (UnsupportedOperationException | IOException e) {
                // a file system without symbolic links: a copy, as huggingface_hub falls back to
                Files.copy(blob, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.move(tmp, pointer, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return pointer;
        } catch (IOException e) {
            throw io("cannot link " + pointer + " to " + blob, e);
        } finally {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // only left when the rename failed, and that failure is the one reported
            }
        }
    }

    private Path refFile(RepoId repo, String revision) {
        HubRef.checkRevision(revision);
        return repoDir(repo).resolve("refs").resolve(revision);
    }

    static HubException io(String what, IOException e) {
        String m = Download.diskFull(e) ? "no space left on the device" : e.toString();
        return new HubException(
                Download.diskFull(e) ? HubException.Reason.DISK_FULL : HubException.Reason.CACHE_IO,
                what + ": " + m,
                e);
    }
}

package org.pettingllms.hub;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.pettingllms.hub.HubException.Reason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Models and datasets from the Hugging Face Hub, as huggingface_hub's {@code snapshot_download} and
 * {@code hf_hub_download} get them, into the same cache ({@link HubCache}): list the revision, {@code HEAD} each
 * wanted file that the snapshot lacks, download the blobs that the cache lacks, link them into
 * {@code snapshots/<commit>/}. A second call finds everything in place and downloads nothing. Offline
 * ({@code HF_HUB_OFFLINE}) it reads the cache only; when the Hub cannot be reached or refuses, a revision the cache
 * has is used, with a warning, as huggingface_hub does.
 */
public final class HubClient {
    private static final Logger LOG = LoggerFactory.getLogger(HubClient.class);
    /** The listing failures after which the cache may still answer (huggingface_hub falls back on these too). */
    private static final Set<Reason> CACHE_FALLBACK = Set.of(
            Reason.NO_NETWORK, Reason.UNAVAILABLE, Reason.REPO_NOT_FOUND, Reason.GATED_REPO, Reason.ACCESS_DENIED);

    private final HubSettings settings;
    private final HubCache cache;
    private final HubHttp http;
    private final Download download;

    public HubClient(HubSettings settings) {
        this(settings, Retries.DEFAULT);
    }

    public HubClient(HubSettings settings, Retries retries) {
        this(settings, retries, Download.FreeSpace.FILE_STORE);
    }

    HubClient(HubSettings settings, Retries retries, Download.FreeSpace freeSpace) {
        this.settings = settings;
        this.cache = new HubCache(settings.cacheDir());
        this.http = new HubHttp(settings, retries);
        this.download = new Download(http, cache, freeSpace, settings.downloadTimeout());
    }

    public HubSettings settings() {
        return settings;
    }

    public HubCache cache() {
        return cache;
    }

    /** The files of {@code ref} that {@code filter} takes, downloaded if the cache lacks them. */
    public Snapshot snapshot(HubRef ref, FileFilter filter, DownloadListener listener) {
        if (settings.offline()) {
            return cached(ref, filter);
        }
        HubHttp.Listing listing;
        try {
            listing = http.listing(ref);
        } catch (HubException e) {
            return fallBack(ref, e, () -> cached(ref, filter));
        }
        List<String> selected = listing.files().stream().filter(filter::matches).toList();
        if (selected.isEmpty() && !filter.include().isEmpty()) {
            throw new HubException(
                    Reason.ENTRY_NOT_FOUND,
                    "no file of " + ref.repo() + " at revision '" + ref.revision() + "' matches " + filter + "; "
                            + listed(listing.files()));
        }
        return fetch(ref, listing.commit(), selected, listener);
    }

    /**
     * The one file an {@code hf://} URL names, downloaded if the cache lacks it (and nothing else of the repo). A path
     * with wildcards ({@link Glob#path}) must match exactly one file.
     */
    public Path file(HfUrl url, DownloadListener listener) {
        HubRef ref = url.ref();
        RepoId repo = ref.repo();
        if (!Glob.hasWildcard(url.path()) && ref.pinned() && cache.hasFile(repo, ref.revision(), url.path())) {
            return cache.pointer(repo, ref.revision(), url.path()); // a commit's files never change: no need to ask
        }
        if (settings.offline()) {
            return cachedFile(url);
        }
        HubHttp.Listing listing;
        try {
            listing = http.listing(ref);
        } catch (HubException e) {
            return fallBack(ref, e, () -> cachedFile(url));
        }
        String path = exactlyOne(url, listing.files(), "the repo has");
        return fetch(ref, listing.commit(), List.of(path), listener).file(path);
    }

    /** What the cache has of {@code ref}, without the network. */
    public Snapshot cached(HubRef ref, FileFilter filter) {
        RepoId repo = ref.repo();
        String commit = cache.cachedCommit(ref).orElseThrow(() -> notCached(ref, ""));
        Path folder = cache.snapshotDir(repo, commit);
        if (!Files.isDirectory(folder)) {
            throw notCached(ref, "");
        }
        List<String> files = cache.snapshotFiles(repo, commit).stream()
                .filter(filter::matches)
                .toList();
        if (files.isEmpty() && !filter.include().isEmpty()) {
            throw notCached(ref, " (its snapshot " + commit + " has no file matching " + filter + ")");
        }
        return new Snapshot(repo, commit, folder, files);
    }

    private Path cachedFile(HfUrl url) {
        Snapshot s = cached(url.ref(), FileFilter.ALL);
        return s.file(exactlyOne(url, s.files(), "the cached snapshot " + s.commit() + " has"));
    }

    /** Links the wanted files into the snapshot of {@code commit}, downloading the blobs the cache lacks. */
    private Snapshot fetch(HubRef ref, String commit, List<String> paths, DownloadListener listener) {
        RepoId repo = ref.repo();
        cache.writeRef(repo, ref.revision(), commit);
        Path folder = cache.snapshotDir(repo, commit);
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw HubCache.io("cannot create " + folder, e);
        }
        List<FileMeta> downloads = new ArrayList<>();
        for (String path : paths) {
            if (cache.hasFile(repo, commit, path)) {
                continue;
            }
            // by commit, so that every file comes from the one commit even if the branch moves meanwhile
            FileMeta meta = http.head(repo, commit, path);
            if (Files.isRegularFile(cache.blob(repo, meta.etag()))) {
                cache.link(repo, commit, path, meta.etag()); // the same content is cached for another commit
            } else {
                downloads.add(meta);
            }
        }
        listener.starting(List.copyOf(downloads));
        for (FileMeta meta : downloads) {
            download.blob(repo, commit, meta, listener);
            cache.link(repo, commit, meta.path(), meta.etag());
        }
        return new Snapshot(repo, commit, folder, paths);
    }

    private <T> T fallBack(HubRef ref, HubException e, Supplier<T> fromCache) {
        if (!CACHE_FALLBACK.contains(e.reason())) {
            throw e;
        }
        T found;
        try {
            found = fromCache.get();
        } catch (HubException notThere) {
            throw e;
        }
        LOG.warn("{}; using what the cache has of {}", e.getMessage(), ref);
        return found;
    }

    private static String exactlyOne(HfUrl url, List<String> files, String where) {
        String pattern = url.path();
        Predicate<String> match = Glob.hasWildcard(pattern) ? Glob.path(pattern) : pattern::equals;
        List<String> hits = files.stream().filter(match).toList();
        if (hits.size() == 1) {
            return hits.get(0);
        }
        if (hits.isEmpty()) {
            throw new HubException(
                    Reason.ENTRY_NOT_FOUND, url + " matches no file (" + where + " " + names(files) + ")");
        }
        throw new HubException(Reason.ENTRY_NOT_FOUND, url + " matches " + names(hits) + "; it must match one");
    }

    /** {@code it has N files: a, b, c, ...}, for messages. */
    private static String listed(List<String> files) {
        return "it has " + names(files);
    }

    /** {@code N files: a, b, c, ...} (the first ten), or {@code no files}. */
    private static String names(List<String> files) {
        if (files.isEmpty()) {
            return "no files";
        }
        return files.size() + " file" + (files.size() == 1 ? "" : "s") + ": "
                + String.join(", ", files.subList(0, Math.min(10, files.size()))) + (files.size() > 10 ? ", ..." : "");
    }

    private HubException notCached(HubRef ref, String detail) {
        String how = settings.offline()
                ? "; HF_HUB_OFFLINE is set, so nothing is downloaded: unset it to download " + ref
                : "";
        return new HubException(
                Reason.NOT_CACHED,
                ref.repo() + " at revision '" + ref.revision() + "' is not in the Hugging Face cache "
                        + cache.repoDir(ref.repo()) + detail + how);
    }
}

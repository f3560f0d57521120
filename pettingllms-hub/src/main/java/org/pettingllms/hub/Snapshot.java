package org.pettingllms.hub;

import java.nio.file.Path;
import java.util.List;

/**
 * A repo's files at one commit, in the cache: {@code snapshots/<commit>/} with a link per file.
 *
 * @param repo   the repo
 * @param commit the commit sha the revision resolved to
 * @param folder {@code <cache>/<models--org--name>/snapshots/<commit>}: the folder to hand to whatever loads it
 * @param files  the paths taken by the filter, all present under {@code folder}
 */
public record Snapshot(RepoId repo, String commit, Path folder, List<String> files) {
    public Snapshot {
        files = List.copyOf(files);
    }

    /** The local path of one of the files. */
    public Path file(String path) {
        return folder.resolve(path);
    }
}

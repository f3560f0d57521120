package org.pettingllms.hub;

import java.util.List;

/** Hears how downloads go, for a progress bar. Calls come from the downloading thread. */
public interface DownloadListener {
    DownloadListener NONE = (path, done, total) -> {};

    /** Once, before the first byte: the files that will be downloaded (cached ones are not). */
    default void starting(List<FileMeta> downloads) {}

    /**
     * Bytes of {@code path} on disk so far, out of {@code total}. A resumed download starts at what its partial file
     * held; a server that ignores the range request makes {@code done} go back to 0.
     */
    void progress(String path, long done, long total);
}

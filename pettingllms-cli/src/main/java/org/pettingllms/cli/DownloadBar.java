package org.pettingllms.cli;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.hub.DownloadListener;
import org.pettingllms.hub.FileMeta;

/** A download from the Hub as one bar over all its files' bytes ({@code Qwen/Qwen3-1.7B (3 files) [###---] 1.2 GB/3.4 GB}). */
final class DownloadBar implements DownloadListener {
    private final String repo;
    private final Map<String, Long> done = new HashMap<>();
    private ProgressBar bar;
    private long total;
    private long sum;

    DownloadBar(String repo) {
        this.repo = repo;
    }

    @Override
    public void starting(List<FileMeta> downloads) {
        if (downloads.isEmpty()) {
            return;
        }
        total = downloads.stream().mapToLong(FileMeta::size).sum();
        bar = ProgressBar.ofBytes(repo + " (" + downloads.size() + (downloads.size() == 1 ? " file)" : " files)"));
    }

    @Override
    public void progress(String path, long bytes, long fileTotal) {
        if (bar == null) {
            return;
        }
        Long before = done.put(path, bytes);
        sum += bytes - (before == null ? 0 : before);
        bar.update(sum, total);
    }
}

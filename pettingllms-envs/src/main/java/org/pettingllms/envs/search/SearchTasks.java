package org.pettingllms.envs.search;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.data.DatasetOptions;
import org.pettingllms.envs.data.DatasetSources;
import org.pettingllms.envs.data.DatasetTaskProvider;
import org.pettingllms.envs.data.Items;

/**
 * Makes the search task by name: {@code search} ({@code search-v1}), on generated worlds or on HotpotQA-, Search-R1-
 * or FlashRAG-layout question files ({@link SearchRows}).
 */
public final class SearchTasks extends DatasetTaskProvider<SearchTasks.SearchOptions, SearchTask> {
    /** Closed corpora kept indexed: a step's questions and the validation set's, without indexing them per search. */
    static final int CACHED_INDEXES = 1024;

    /**
     * @param generator      the generated worlds: {@code worlds} ({@link SearchWorlds}); empty for dataset files
     * @param train          a questions file; empty for evaluation only
     * @param test           its test questions file
     * @param corpus         what a question's searches search: empty for its own passages (a generated world,
     *                       HotpotQA's ten paragraphs); {@code pooled} for every question's passages in one index; a
     *                       corpus file (JSON Lines, {@link Corpus}) indexed with BM25; or a retrieval server's URL
     * @param index          where corpus files' indexes are cached
     * @param topk           passages a search returns
     * @param timeoutSeconds a retrieval server's time to answer one search
     */
    public record SearchOptions(
            String generator, String train, String test, String corpus, String index, int topk, int timeoutSeconds)
            implements DatasetOptions {
        public static final SearchOptions DEFAULT =
                new SearchOptions(SearchWorlds.NAME, "", "", "", "runs/search-index", 3, 30);

        public SearchOptions {
            if (topk < 1 || topk > Bm25Index.MAX_TOPK) {
                throw new ConfigException(
                        "config key 'task.options.topk': expected 1 to " + Bm25Index.MAX_TOPK + ", got " + topk);
            }
            if (timeoutSeconds < 1) {
                throw new ConfigException(
                        "config key 'task.options.timeoutSeconds': expected >= 1, got " + timeoutSeconds);
            }
        }
    }

    public SearchTasks() {
        super("search", SearchOptions.DEFAULT, List.of(SearchTask.SEARCHER, SearchTask.ANSWERER));
    }

    @Override
    protected SearchTask create(SearchOptions o, List<String> roles, int maxTurns) {
        Items<SearchItem> items =
                DatasetSources.items(o, SearchWorlds.NAME, SearchWorlds::item, SearchRows::load, SearchItem.class);
        return new SearchTask(roles, maxTurns, items, retrievers(o, items), o.topk());
    }

    /** The retriever of each question, from {@code task.options.corpus}. */
    static Function<SearchItem, Retriever> retrievers(SearchOptions o, Items<SearchItem> items) {
        String c = o.corpus().strip();
        if (c.isEmpty()) {
            return closed();
        }
        Retriever shared;
        if (c.startsWith("http://") || c.startsWith("https://")) {
            shared = new RemoteRetriever(c, Duration.ofSeconds(o.timeoutSeconds()));
        } else if (c.equals("pooled")) {
            if (!(items instanceof Items.Listed<SearchItem> listed)) {
                throw new ConfigException("config key 'task.options.corpus': 'pooled' pools the passages of question"
                        + " files; generated worlds each have their own (leave corpus empty)");
            }
            shared = pooled(listed);
        } else {
            shared = Bm25Index.open(DatasetSources.resolve(c, "corpus"), Path.of(o.index()));
        }
        return item -> shared;
    }

    /** Each question's own passages, indexed on first use and kept for the next {@link #CACHED_INDEXES}. */
    private static Function<SearchItem, Retriever> closed() {
        Map<String, Bm25Index> cache = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Bm25Index> e) {
                if (size() > CACHED_INDEXES) {
                    e.getValue().close();
                    return true;
                }
                return false;
            }
        });
        return item -> {
            if (item.passages().isEmpty()) {
                throw new ConfigException("question " + item.id() + " has no passages of its own: set"
                        + " task.options.corpus to a corpus file or a retrieval server");
            }
            return cache.computeIfAbsent(item.id() + "\n" + item.question(), k -> Bm25Index.of(item.passages()));
        };
    }

    /** One index of every question's passages (train and test files), each title once. */
    private static Retriever pooled(Items.Listed<SearchItem> items) {
        Map<String, Passage> byTitle = new LinkedHashMap<>();
        List<SearchItem> all = new ArrayList<>(items.train());
        all.addAll(items.test());
        for (SearchItem i : all) {
            for (Passage p : i.passages()) {
                byTitle.putIfAbsent(p.title(), p);
            }
        }
        if (byTitle.isEmpty()) {
            throw new ConfigException("config key 'task.options.corpus': 'pooled', but the question files hold no"
                    + " passages (HotpotQA's context); name a corpus file or a retrieval server");
        }
        return Bm25Index.of(List.copyOf(byTitle.values()));
    }
}

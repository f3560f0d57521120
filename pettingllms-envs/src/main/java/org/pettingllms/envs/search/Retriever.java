package org.pettingllms.envs.search;

import java.util.List;

/**
 * Where a search task's passages come from: an in-process BM25 index ({@link Bm25Index}) or a retrieval server
 * ({@link RemoteRetriever}, the Search-R1 {@code /retrieve} contract). Any query text is accepted: an empty, huge or
 * odd one returns what it finds (often nothing), never an error; only a retriever that cannot answer at all (a
 * server down) throws {@link RetrievalException}.
 */
public interface Retriever extends AutoCloseable {
    /** Up to {@code topk} passages for {@code query}, best first. */
    List<Hit> search(String query, int topk);

    @Override
    default void close() {}

    /** A passage and its score (BM25's, or what the server reports; 0 when it reports none). */
    record Hit(Passage passage, double score) {}

    /** The retriever could not answer (a server unreachable or answering with an error). */
    final class RetrievalException extends RuntimeException {
        public RetrievalException(String message) {
            super(message);
        }

        public RetrievalException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}

package org.pettingllms.hub;

import java.util.Locale;

/** The kinds of Hub repo this module reads. Spaces are left out: nothing here runs them. */
public enum RepoType {
    MODEL,
    DATASET;

    /** {@code models} or {@code datasets}: the cache folder prefix and the API path segment. */
    public String plural() {
        return name().toLowerCase(Locale.ROOT) + "s";
    }

    /** The prefix of the repo's web and {@code resolve} URLs: none for models, {@code datasets/} for datasets. */
    public String urlPrefix() {
        return this == MODEL ? "" : "datasets/";
    }

    /** {@code model} or {@code dataset}, for messages. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}

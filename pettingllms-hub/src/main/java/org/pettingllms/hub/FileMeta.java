package org.pettingllms.hub;

import java.net.URI;
import java.util.regex.Pattern;

/**
 * What a {@code HEAD} of a file's {@code resolve} URL tells: the facts a download needs and checks.
 *
 * @param path     the file's path in the repo
 * @param commit   {@code X-Repo-Commit}: the commit the revision resolved to
 * @param etag     {@code X-Linked-Etag} (the sha256 of an LFS file) or else {@code ETag} (a git blob's sha1), without
 *                 quotes or {@code W/}: the blob's name in the cache
 * @param size     {@code X-Linked-Size} or else {@code Content-Length}: the file's size in bytes
 * @param location where the bytes are: the redirect target (a CDN, for LFS files) or the resolve URL itself
 * @param lfs      whether the Hub linked the file to LFS storage ({@code X-Linked-Etag} was sent)
 */
public record FileMeta(String path, String commit, String etag, long size, URI location, boolean lfs) {
    private static final Pattern SHA1 = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /** How the downloaded bytes are checked against the etag. */
    public enum Check {
        /** sha256 of the content: LFS files (and any etag of 64 hex digits) */
        SHA256,
        /** git's blob id, sha1 of {@code "blob <size>\0"} + content: files stored in git */
        GIT_SHA1,
        /** an etag of neither form (a mirror that is not the Hub): only the size is checked */
        SIZE_ONLY
    }

    public FileMeta {
        RepoPaths.checkRelative(path, "a file of the listing");
        if (etag.isEmpty() || etag.contains("/") || etag.startsWith(".")) {
            // the etag becomes a file name under blobs/
            throw new HubException(
                    HubException.Reason.PROTOCOL,
                    "the ETag '" + etag + "' of " + path
                            + " cannot name a cache file; is HF_ENDPOINT a Hugging Face Hub?");
        }
    }

    public Check check() {
        if (SHA256.matcher(etag).matches()) {
            return Check.SHA256;
        }
        return !lfs && SHA1.matcher(etag).matches() ? Check.GIT_SHA1 : Check.SIZE_ONLY;
    }

    /** An ETag header as huggingface_hub normalises it: {@code W/} and surrounding quotes removed. */
    static String normalizeEtag(String header) {
        String e = header.strip();
        if (e.startsWith("W/")) {
            e = e.substring(2);
        }
        if (e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"")) {
            e = e.substring(1, e.length() - 1);
        }
        return e;
    }
}

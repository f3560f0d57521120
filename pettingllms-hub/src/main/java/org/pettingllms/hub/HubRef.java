package org.pettingllms.hub;

import java.util.regex.Pattern;

/**
 * A repo at a revision: what {@code org/name@rev}, {@code datasets/org/name} or a config's model id names.
 *
 * @param repo     the repo
 * @param revision a branch, a tag or a commit sha ({@code main} when none is given)
 */
public record HubRef(RepoId repo, String revision) {
    public static final String DEFAULT_REVISION = "main";
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");

    public HubRef {
        checkRevision(revision);
    }

    public static HubRef of(RepoId repo) {
        return new HubRef(repo, DEFAULT_REVISION);
    }

    /**
     * Reads {@code org/name}, {@code org/name@rev} or {@code datasets/org/name[@rev]}; without the prefix the repo is
     * of type {@code type}.
     */
    public static HubRef parse(String text, RepoType type) {
        String s = text.strip();
        RepoType t = type;
        if (s.startsWith("datasets/")) {
            t = RepoType.DATASET;
            s = s.substring("datasets/".length());
        }
        int at = s.indexOf('@');
        String id = at < 0 ? s : s.substring(0, at);
        String rev = at < 0 ? DEFAULT_REVISION : s.substring(at + 1);
        if (!RepoId.isValid(id)) {
            throw new HubException(
                    HubException.Reason.BAD_REQUEST,
                    "'" + text + "' is not a Hub repo; expected"
                            + " org/name, org/name@revision or datasets/org/name, for example Qwen/Qwen3-1.7B");
        }
        return new HubRef(new RepoId(t, id), rev);
    }

    /**
     * Whether {@code text} has the form of a Hub id ({@code org/name} or {@code org/name@rev}). Relative paths of
     * two parts have it too: callers check for a local directory first.
     */
    public static boolean looksLikeId(String text) {
        if (text == null) {
            return false;
        }
        int at = text.indexOf('@');
        String id = at < 0 ? text : text.substring(0, at);
        if (!RepoId.isValid(id)) {
            return false;
        }
        if (at < 0) {
            return true;
        }
        try {
            checkRevision(text.substring(at + 1));
            return true;
        } catch (HubException e) {
            return false;
        }
    }

    /** Whether {@code revision} is a full commit sha, which names the same files forever. */
    public static boolean isCommit(String revision) {
        return COMMIT.matcher(revision).matches();
    }

    public boolean pinned() {
        return isCommit(revision);
    }

    /** Revisions become file names under {@code refs/}: refuse what would leave that folder. */
    static void checkRevision(String revision) {
        if (revision == null
                || revision.isBlank()
                || revision.startsWith("/")
                || revision.endsWith("/")
                || revision.contains("\\")
                || revision.contains("//")
                || revision.chars().anyMatch(Character::isISOControl)
                || ("/" + revision + "/").contains("/../")
                || ("/" + revision + "/").contains("/./")) {
            throw new HubException(
                    HubException.Reason.BAD_REQUEST,
                    "'" + revision + "' is not a revision; expected a"
                            + " branch, a tag or a commit sha, for example main");
        }
    }

    /** {@code org/name@rev} ({@code datasets/} in front for a dataset). */
    @Override
    public String toString() {
        return repo.type().urlPrefix() + repo.id() + "@" + revision;
    }
}

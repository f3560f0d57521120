package org.pettingllms.hub;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file in a Hub repo named as huggingface_hub's file system names it: {@code hf://datasets/org/name/path/in/repo}
 * for a dataset, {@code hf://org/name/path} for a model, {@code @rev} after the name for a revision other than
 * {@code main} ({@code @refs/pr/1} as is, any other revision with a {@code /} percent-encoded). The path may hold
 * glob characters ({@link Glob#path}).
 *
 * @param ref  the repo and revision
 * @param path the path inside the repo, {@code /}-separated
 */
public record HfUrl(HubRef ref, String path) {
    public static final String SCHEME = "hf://";
    /** The two kinds of revision that hold a {@code /} and are written unencoded in hf:// URLs. */
    private static final Pattern SPECIAL_REF = Pattern.compile("(refs/pr/\\d+|refs/convert/\\w+)(?:/(.*))?");

    public HfUrl {
        RepoPaths.checkRelative(path, "path in " + SCHEME + ref);
    }

    public static boolean isHfUrl(String text) {
        return text != null && text.startsWith(SCHEME);
    }

    public static HfUrl parse(String text) {
        if (!isHfUrl(text)) {
            throw bad(text);
        }
        String rest = text.substring(SCHEME.length());
        RepoType type = RepoType.MODEL;
        if (rest.startsWith("datasets/")) {
            type = RepoType.DATASET;
            rest = rest.substring("datasets/".length());
        }
        String[] parts = rest.split("/", 3);
        if (parts.length < 3 || parts[2].isEmpty()) {
            throw bad(text);
        }
        String org = parts[0];
        String name = parts[1];
        String path = parts[2];
        String revision = HubRef.DEFAULT_REVISION;
        int at = name.indexOf('@');
        if (at >= 0) {
            revision = URLDecoder.decode(name.substring(at + 1), StandardCharsets.UTF_8);
            name = name.substring(0, at);
            Matcher special = SPECIAL_REF.matcher(revision + "/" + path);
            if (revision.equals("refs") && special.matches()) {
                revision = special.group(1);
                path = special.group(2) == null ? "" : special.group(2);
            }
        }
        if (!RepoId.isValid(org + "/" + name) || path.isEmpty()) {
            throw bad(text);
        }
        return new HfUrl(new HubRef(new RepoId(type, org + "/" + name), revision), path);
    }

    private static HubException bad(String text) {
        return new HubException(
                HubException.Reason.BAD_REQUEST,
                "'" + text + "' is not a Hub file URL; expected"
                        + " hf://datasets/org/name[@revision]/path/in/repo (or hf://org/name/... for a model repo)");
    }

    @Override
    public String toString() {
        return SCHEME + ref.repo().type().urlPrefix() + ref.repo().id()
                + (ref.revision().equals(HubRef.DEFAULT_REVISION) ? "" : "@" + ref.revision()) + "/" + path;
    }
}

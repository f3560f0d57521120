package org.pettingllms.hub;

import java.net.URI;
import java.util.regex.Pattern;

/**
 * A repo on the Hub: its type and its id {@code org/name}.
 *
 * @param type model or dataset
 * @param id   {@code org/name}: letters, digits, {@code - _ .}; no {@code --} or {@code ..} (the Hub forbids
 *             them; {@code --} separates the parts of the cache folder's name)
 */
public record RepoId(RepoType type, String id) {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,96}/[A-Za-z0-9_.-]{1,96}");

    public RepoId {
        if (!isValid(id)) {
            throw new HubException(
                    HubException.Reason.BAD_REQUEST,
                    "'" + id + "' is not a Hub repo id; expected"
                            + " org/name (letters, digits, '-', '_', '.'), for example Qwen/Qwen3-1.7B");
        }
    }

    public static RepoId model(String id) {
        return new RepoId(RepoType.MODEL, id);
    }

    public static RepoId dataset(String id) {
        return new RepoId(RepoType.DATASET, id);
    }

    /** Whether {@code id} has the form of a repo id. */
    public static boolean isValid(String id) {
        return id != null
                && ID.matcher(id).matches()
                && !id.contains("--")
                && !id.contains("..")
                && !id.endsWith(".git")
                && !id.startsWith(".")
                && !id.contains("/.");
    }

    /** The repo's folder in the cache, as huggingface_hub names it: {@code models--org--name}. */
    public String folderName() {
        return type.plural() + "--" + id.replace("/", "--");
    }

    /** The repo's page, where a gated repo's terms are accepted. */
    public URI page(URI endpoint) {
        return URI.create(endpoint + "/" + type.urlPrefix() + id);
    }

    /** The same id as the other type of repo. */
    public RepoId as(RepoType other) {
        return new RepoId(other, id);
    }

    /** {@code model repo org/name} or {@code dataset repo org/name}, for messages. */
    @Override
    public String toString() {
        return type.word() + " repo " + id;
    }
}

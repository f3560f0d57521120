package org.pettingllms.hub;

/** Paths inside a repo become paths under the cache: refuse the ones that would leave their folder. */
final class RepoPaths {
    private RepoPaths() {}

    /** Throws unless {@code path} is relative, {@code /}-separated, with no empty, {@code .} or {@code ..} part. */
    static String checkRelative(String path, String where) {
        boolean ok = path != null
                && !path.isEmpty()
                && !path.startsWith("/")
                && !path.contains("\\")
                && path.chars().noneMatch(Character::isISOControl);
        if (ok) {
            for (String part : path.split("/", -1)) {
                if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                    ok = false;
                    break;
                }
            }
        }
        if (!ok) {
            throw new HubException(
                    HubException.Reason.BAD_REQUEST,
                    "'" + path + "' (" + where + ") is not a relative"
                            + " path inside a repo; expected parts separated by '/', none empty, '.' or '..'");
        }
        return path;
    }
}

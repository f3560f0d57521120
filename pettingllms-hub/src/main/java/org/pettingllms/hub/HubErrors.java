package org.pettingllms.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import org.pettingllms.hub.HubException.Reason;

/**
 * The Hub's refusals as one line each, naming the repo, revision or file and what to do. The Hub says what went
 * wrong in {@code X-Error-Code} ({@code GatedRepo}, {@code RepoNotFound}, {@code RevisionNotFound},
 * {@code EntryNotFound}); a 401 without a token is how it hides private repos, so it reads as "not found".
 */
final class HubErrors {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HubErrors() {}

    static HubException of(
            HttpResponse<?> r, String body, HubHttp.Target t, boolean tokenSent, int attempts, HubSettings s) {
        int code = r.statusCode();
        String errorCode = r.headers().firstValue("X-Error-Code").orElse("");
        String said = serverMessage(r, body);
        RepoId repo = t.repo();
        if (errorCode.equals("GatedRepo")) {
            return new HubException(
                    Reason.GATED_REPO,
                    repo + " is gated: accept its terms on " + repo.page(s.endpoint())
                            + " (logged in), then set HF_TOKEN to a token of that account ("
                            + (tokenSent ? "the token sent has no access yet" : "no token was sent") + ")");
        }
        if (errorCode.equals("RevisionNotFound")) {
            return new HubException(
                    Reason.REVISION_NOT_FOUND,
                    "revision '" + t.revision() + "' not found in " + repo
                            + "; expected one of its branches, tags or commit shas");
        }
        if (errorCode.equals("EntryNotFound") || (code == 404 && errorCode.isEmpty() && t.path() != null)) {
            return new HubException(
                    Reason.ENTRY_NOT_FOUND,
                    "file '" + t.path() + "' not found in " + repo + " at revision '" + t.revision() + "'");
        }
        if (code == 401 && tokenSent && said.contains("Invalid credentials")) {
            return new HubException(
                    Reason.ACCESS_DENIED,
                    "the Hub refused the token (HF_TOKEN or the token file) for " + repo + ": " + said
                            + "; make a new one on " + s.endpoint() + "/settings/tokens");
        }
        if (errorCode.equals("RepoNotFound") || (code == 401 && !tokenSent) || (code == 404 && errorCode.isEmpty())) {
            return new HubException(
                    Reason.REPO_NOT_FOUND,
                    repo + " not found on " + s.endpoint()
                            + (tokenSent
                                    ? " (if it is private, the token sent cannot read it)"
                                    : " (if it is private or gated, set HF_TOKEN to a token that can read it)"));
        }
        if (code == 401 || code == 403) {
            return new HubException(
                    Reason.ACCESS_DENIED,
                    "access to " + repo + " denied (HTTP " + code
                            + (said.isEmpty() ? "" : ": " + said) + "); "
                            + (tokenSent
                                    ? "make sure the token (HF_TOKEN or the token file) may read it"
                                    : "set HF_TOKEN to a token that" + " may read it"));
        }
        String what = t.path() == null ? repo.toString() : "'" + t.path() + "' of " + repo;
        if (code == 408 || code == 429 || code >= 500) {
            return new HubException(
                    Reason.UNAVAILABLE,
                    r.request().method() + " " + r.uri() + " (" + what
                            + ") answered HTTP " + code + " " + attempts + " time(s)"
                            + (said.isEmpty() ? "" : " (" + said + ")")
                            + "; the Hub is down or limiting requests, try again later");
        }
        return new HubException(
                Reason.PROTOCOL,
                "HTTP " + code + " from " + r.uri() + " (" + what + ")" + (said.isEmpty() ? "" : ": " + said));
    }

    /** A request that never got an answer: the network, the host's name, or the endpoint is down. */
    static HubException unreachable(URI uri, IOException e, int attempts, HubSettings s) {
        String host = uri.getScheme() + "://" + uri.getAuthority();
        String cause = cause(e);
        if (e instanceof HttpTimeoutException) {
            return new HubException(
                    Reason.UNAVAILABLE,
                    host + " did not answer " + uri.getPath() + " in time (" + attempts
                            + " tries); try again, or raise HF_HUB_ETAG_TIMEOUT / HF_HUB_DOWNLOAD_TIMEOUT (seconds)",
                    e);
        }
        if (!HubHttp.isConnectFailure(e) && !unresolved(e)) {
            return new HubException(Reason.UNAVAILABLE, uri + " failed " + attempts + " time(s): " + cause, e);
        }
        return new HubException(
                Reason.NO_NETWORK,
                "cannot reach " + host + " (" + cause + "); check the network"
                        + (host.equals(s.endpoint().getScheme() + "://"
                                        + s.endpoint().getAuthority())
                                ? " and HF_ENDPOINT"
                                : "")
                        + ", or set HF_HUB_OFFLINE=1 to use only what the cache " + s.cacheDir() + " has",
                e);
    }

    /** Whether the host's name could not be resolved (no network, or a wrong HF_ENDPOINT): not worth a retry. */
    static boolean unresolved(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    /** A failed request's reason in a few words ({@code connection refused}, {@code unknown host}). */
    static String cause(Throwable e) {
        if (unresolved(e)) {
            return "unknown host";
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return t.getMessage();
            }
        }
        // the JDK's client says nothing more when a connection is refused
        return e instanceof ConnectException
                ? "connection refused"
                : e.getClass().getSimpleName();
    }

    /** What the server said: {@code X-Error-Message}, else the body's {@code error}, else the body's first line. */
    private static String serverMessage(HttpResponse<?> r, String body) {
        String m = r.headers().firstValue("X-Error-Message").orElse("");
        if (m.isEmpty() && !body.isBlank()) {
            try {
                JsonNode j = JSON.readTree(body);
                m = j.path("error").isTextual() ? j.path("error").asText() : "";
            } catch (IOException e) {
                m = body.strip().lines().findFirst().orElse("");
            }
        }
        m = m.strip();
        return m.length() > 200 ? m.substring(0, 200) + "..." : m;
    }
}

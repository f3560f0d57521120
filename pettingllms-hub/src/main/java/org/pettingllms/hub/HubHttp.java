package org.pettingllms.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Hub's HTTP API as huggingface_hub calls it: the revision listing, a file's metadata ({@code HEAD} of its
 * {@code resolve} URL, following only relative redirects such as a renamed repo's, never the CDN's) and the
 * download itself ({@code GET}, redirects followed). Passing failures are retried ({@link Retries}); the token goes
 * only to the endpoint's own host, never to a CDN a redirect points at.
 */
final class HubHttp {
    private static final Logger LOG = LoggerFactory.getLogger(HubHttp.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    private static final Set<Integer> RETRIED = Set.of(408, 429, 500, 502, 503, 504);
    private static final int MAX_REDIRECTS = 10;
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(30);

    /** Which redirects a request follows. */
    private enum Follow {
        ALL,
        RELATIVE
    }

    /** What a request was for, so that an error can name it. */
    record Target(RepoId repo, String revision, String path) {}

    /** The revision API's answer: the commit and every file in it. */
    record Listing(String commit, List<String> files) {
        Listing {
            files = List.copyOf(files);
        }
    }

    private final HubSettings settings;
    private final Retries retries;
    private final HttpClient client;
    private final String userAgent;

    HubHttp(HubSettings settings, Retries retries) {
        this.settings = settings;
        this.retries = retries;
        // redirects are followed here, by hand: the token must not follow a redirect to another host
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(settings.metadataTimeout())
                .build();
        String v = HubHttp.class.getPackage().getImplementationVersion();
        this.userAgent = "pettingllms-hub/" + (v == null ? "dev" : v) + "; java/"
                + Runtime.version().feature();
    }

    /** {@code GET /api/{models|datasets}/{repo}/revision/{rev}}: the commit sha and the files of the revision. */
    Listing listing(HubRef ref) {
        RepoId repo = ref.repo();
        URI uri = URI.create(settings.endpoint() + "/api/" + repo.type().plural() + "/" + repo.id() + "/revision/"
                + encode(ref.revision(), false));
        Target target = new Target(repo, ref.revision(), null);
        HttpResponse<InputStream> r = send("GET", uri, null, Follow.ALL, settings.metadataTimeout(), target);
        JsonNode json;
        try (InputStream in = r.body()) {
            json = JSON.readTree(in);
        } catch (IOException e) {
            throw new HubException(
                    HubException.Reason.PROTOCOL,
                    "the listing of " + repo + " at " + uri + " is not JSON (" + e.getMessage()
                            + "); is HF_ENDPOINT a Hugging Face Hub?",
                    e);
        }
        String sha = json.path("sha").asText("");
        if (!HubRef.isCommit(sha)) {
            throw new HubException(
                    HubException.Reason.PROTOCOL,
                    "the listing of " + repo + " at " + uri + " has no commit sha; is HF_ENDPOINT a Hugging Face Hub?");
        }
        List<String> files = new ArrayList<>();
        for (JsonNode s : json.path("siblings")) {
            String f = s.path("rfilename").asText("");
            if (!f.isEmpty()) {
                files.add(RepoPaths.checkRelative(f, "listed by " + uri));
            }
        }
        return new Listing(sha, files);
    }

    /** The {@code resolve} URL of a file at a revision. */
    URI resolveUrl(RepoId repo, String revision, String path) {
        return URI.create(settings.endpoint() + "/" + repo.type().urlPrefix() + repo.id() + "/resolve/"
                + encode(revision, false) + "/" + encode(path, true));
    }

    /** {@code HEAD} of the file's resolve URL: commit, etag, size and where the bytes are. */
    FileMeta head(RepoId repo, String revision, String path) {
        URI uri = resolveUrl(repo, revision, path);
        HttpResponse<InputStream> r =
                send("HEAD", uri, null, Follow.RELATIVE, settings.metadataTimeout(), new Target(repo, revision, path));
        close(r);
        var h = r.headers();
        Optional<String> linkedEtag = h.firstValue("X-Linked-Etag");
        String etag = linkedEtag
                .or(() -> h.firstValue("ETag"))
                .map(FileMeta::normalizeEtag)
                .orElse(null);
        String commit = h.firstValue("X-Repo-Commit").orElse(null);
        Optional<String> size = h.firstValue("X-Linked-Size")
                .or(() -> REDIRECTS.contains(r.statusCode()) ? Optional.empty() : h.firstValue("Content-Length"));
        String missing = commit == null ? "X-Repo-Commit" : etag == null ? "ETag" : size.isEmpty() ? "a size" : null;
        if (missing != null) {
            throw new HubException(
                    HubException.Reason.PROTOCOL,
                    "the answer for " + path + " of " + repo + " (" + uri
                            + ") has no " + missing
                            + " header, which the Hub always sends; is HF_ENDPOINT a Hugging Face"
                            + " Hub, or is a proxy in the way?");
        }
        URI location = h.firstValue("Location").map(l -> r.uri().resolve(l)).orElse(r.uri());
        long bytes;
        try {
            bytes = Long.parseLong(size.get().strip());
        } catch (NumberFormatException e) {
            throw new HubException(
                    HubException.Reason.PROTOCOL,
                    "the size '" + size.get() + "' of " + path + " of " + repo + " is not a number");
        }
        return new FileMeta(path, commit, etag, bytes, location, linkedEtag.isPresent());
    }

    /**
     * {@code GET} of the bytes from {@code from} on ({@code Range: bytes=from-} when {@code from > 0}), redirects
     * followed. The answer is 200 (the whole file), 206 (the rest) or 416 (the range was refused).
     */
    HttpResponse<InputStream> download(FileMeta meta, long from, Target target) {
        String range = from > 0 ? "bytes=" + from + "-" : null;
        return send("GET", meta.location(), range, Follow.ALL, settings.downloadTimeout(), target);
    }

    /** Waits before the next try; an interrupt ends the wait and the download. */
    static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HubException(HubException.Reason.UNAVAILABLE, "interrupted while waiting to retry", e);
        }
    }

    Retries retries() {
        return retries;
    }

    private HttpResponse<InputStream> send(
            String method, URI uri, String range, Follow follow, Duration timeout, Target target) {
        int failed = 0;
        while (true) {
            HttpResponse<InputStream> r;
            try {
                r = following(method, uri, range, follow, timeout);
            } catch (IOException e) {
                failed++;
                if (HubErrors.unresolved(e) || failed >= retries.attempts()) {
                    throw HubErrors.unreachable(uri, e, failed, settings);
                }
                LOG.warn(
                        "{} {}: {}; try {} of {} in {} ms",
                        method,
                        uri,
                        HubErrors.cause(e),
                        failed + 1,
                        retries.attempts(),
                        retries.delay(failed).toMillis());
                pause(retries.delay(failed));
                continue;
            }
            int code = r.statusCode();
            if (code < 300
                    || (follow == Follow.RELATIVE && REDIRECTS.contains(code))
                    || (code == 416 && range != null)) {
                return r;
            }
            failed++;
            if (RETRIED.contains(code) && failed < retries.attempts()) {
                Duration backoff = retries.delay(failed);
                Duration wait = retryAfter(r)
                        .filter(ra -> ra.compareTo(backoff) > 0)
                        .map(ra -> ra.compareTo(MAX_RETRY_AFTER) > 0 ? MAX_RETRY_AFTER : ra)
                        .orElse(backoff);
                close(r);
                LOG.warn(
                        "{} {}: HTTP {}; try {} of {} in {} ms",
                        method,
                        uri,
                        code,
                        failed + 1,
                        retries.attempts(),
                        wait.toMillis());
                pause(wait);
                continue;
            }
            throw HubErrors.of(r, errorBody(r), target, sendsToken(uri), failed, settings);
        }
    }

    /** One request, and the redirects {@code follow} allows (a relative one is the Hub's own, such as a rename). */
    private HttpResponse<InputStream> following(String method, URI uri, String range, Follow follow, Duration timeout)
            throws IOException {
        URI current = uri;
        for (int hops = 0; ; hops++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(current)
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .timeout(timeout)
                    .header("User-Agent", userAgent)
                    // the real size, not a compressed one
                    .header("Accept-Encoding", "identity");
            if (range != null) {
                b.header("Range", range);
            }
            if (sendsToken(current)) {
                b.header("Authorization", "Bearer " + settings.token());
            }
            HttpResponse<InputStream> r;
            try {
                r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HubException(HubException.Reason.UNAVAILABLE, method + " " + current + " interrupted", e);
            }
            Optional<String> location = r.headers().firstValue("Location");
            if (!REDIRECTS.contains(r.statusCode()) || location.isEmpty() || hops >= MAX_REDIRECTS) {
                return r;
            }
            URI target = current.resolve(location.get().strip());
            if (follow == Follow.RELATIVE && URI.create(location.get().strip()).getHost() != null) {
                return r;
            }
            close(r);
            current = target;
        }
    }

    /** The token goes to the endpoint's own origin only (not to a CDN's signed URL, which would refuse it). */
    private boolean sendsToken(URI uri) {
        URI e = settings.endpoint();
        return settings.token() != null
                && Objects.equals(uri.getScheme(), e.getScheme())
                && e.getHost().equalsIgnoreCase(Objects.toString(uri.getHost(), ""))
                && port(uri) == port(e);
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private static Optional<Duration> retryAfter(HttpResponse<?> r) {
        try {
            return r.headers().firstValue("Retry-After").map(s -> Duration.ofSeconds(Long.parseLong(s.strip())));
        } catch (NumberFormatException e) {
            return Optional.empty(); // the HTTP-date form: the backoff applies
        }
    }

    /** The start of an error answer's body (the Hub puts {@code {"error": ...}} there), for the message. */
    private static String errorBody(HttpResponse<InputStream> r) {
        try (InputStream in = r.body()) {
            return new String(in.readNBytes(4096), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    static void close(HttpResponse<InputStream> r) {
        try {
            r.body().close();
        } catch (IOException ignored) {
            // the connection is dropped either way
        }
    }

    /** Percent-encoding as Python's {@code quote}: letters, digits and {@code -._~} kept, {@code /} if asked. */
    static String encode(String s, boolean keepSlash) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "-._~".indexOf(c) >= 0
                    || (keepSlash && c == '/')) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    static boolean isConnectFailure(IOException e) {
        return e instanceof ConnectException || e.getCause() instanceof ConnectException;
    }
}

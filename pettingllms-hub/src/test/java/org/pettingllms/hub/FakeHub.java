package org.pettingllms.hub;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A local server that answers as the Hugging Face Hub does, from its documented behaviour and what huggingface_hub
 * relies on: {@code GET /api/{models|datasets}/{id}/revision/{rev}} (JSON: {@code sha}, {@code siblings[].rfilename});
 * {@code HEAD|GET /[datasets/]{id}/resolve/{rev}/{path}} with {@code X-Repo-Commit}, {@code ETag} (git blob sha1)
 * for files in git, and for LFS files a 302 to a CDN (a second server, another origin) with {@code X-Linked-Etag}
 * (sha256) and {@code X-Linked-Size}; the CDN answers {@code Range} with 206; refusals carry {@code X-Error-Code}
 * ({@code RepoNotFound}: 401 without a token, 404 with one; {@code RevisionNotFound}; {@code EntryNotFound};
 * {@code GatedRepo}: 401 without a token, 403 with one that has no access). A renamed repo answers 307 with a
 * relative {@code Location}. Faults can be switched on: a connection cut half-way through a body, bytes that do not
 * match their etag, 503s, a CDN that ignores {@code Range}. Every request is recorded.
 */
public final class FakeHub implements AutoCloseable {
    /** A request as the servers saw it. */
    public record Request(String server, String method, String path, Headers headers) {
        public String header(String name) {
            return headers.getFirst(name);
        }

        public boolean isBodyGet() {
            return method.equals("GET") && (server.equals("cdn") || path.contains("/resolve/"));
        }
    }

    /** A file of a commit. */
    public record Content(byte[] bytes, boolean lfs) {
        public static Content text(String s) {
            return new Content(s.getBytes(StandardCharsets.UTF_8), false);
        }

        public static Content lfs(byte[] b) {
            return new Content(b, true);
        }

        public String etag() {
            return lfs ? sha256(bytes) : gitSha1(bytes);
        }
    }

    private static final Pattern API = Pattern.compile("/api/(models|datasets)/([^/]+/[^/]+)/revision/([^/]+)");
    private static final Pattern RESOLVE = Pattern.compile("/(datasets/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)");
    private static final Pattern CDN = Pattern.compile("/blobs/([0-9a-f]{64})");

    private final HttpServer hub;
    private final HttpServer cdn;
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final Map<String, Map<String, String>> refs = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Content>> commits = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> repoCommits = new ConcurrentHashMap<>();
    private final Map<String, byte[]> lfsStore = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> gated = new ConcurrentHashMap<>();
    private final Map<String, String> renamed = new ConcurrentHashMap<>();
    private final Set<String> cutOnce = ConcurrentHashMap.newKeySet();
    private final Set<String> corrupt = ConcurrentHashMap.newKeySet();
    private final AtomicInteger unavailable = new AtomicInteger();
    private final AtomicInteger commitCounter = new AtomicInteger();
    private volatile boolean cdnIgnoresRange;

    public FakeHub() throws IOException {
        hub = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        cdn = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        hub.createContext("/", ex -> handle("hub", ex));
        cdn.createContext("/", ex -> handle("cdn", ex));
        hub.start();
        cdn.start();
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + hub.getAddress().getPort());
    }

    /** A new commit of {@code files} on {@code branch} of the repo; returns its sha. */
    public String commit(RepoId repo, String branch, Map<String, Content> files) {
        return commit(
                repo,
                branch,
                files,
                gitSha1(("commit " + repo + " " + commitCounter.incrementAndGet()).getBytes(StandardCharsets.UTF_8)));
    }

    /** A commit with a given sha (to meet a cache written elsewhere). */
    public String commit(RepoId repo, String branch, Map<String, Content> files, String sha) {
        commits.put(sha, new LinkedHashMap<>(files));
        for (Content c : files.values()) {
            if (c.lfs()) {
                lfsStore.put(c.etag(), c.bytes());
            }
        }
        refs.computeIfAbsent(key(repo), k -> new ConcurrentHashMap<>()).put(branch, sha);
        repoCommits
                .computeIfAbsent(key(repo), k -> ConcurrentHashMap.newKeySet())
                .add(sha);
        return sha;
    }

    /** The repo accepts only these tokens (a gated repo whose terms those accounts accepted). */
    public void gate(RepoId repo, String... allowedTokens) {
        gated.put(key(repo), Set.of(allowedTokens));
    }

    /** {@code old} was renamed to {@code now}: its URLs answer 307 with a relative Location. */
    public void rename(RepoId old, RepoId now) {
        renamed.put(key(old), now.id());
    }

    /** The first body of this file (by etag) is cut half-way: the connection closes. */
    public void cutOnce(String etag) {
        cutOnce.add(etag);
    }

    /** The bytes served for this etag are not the ones it names. */
    public void corrupt(String etag) {
        corrupt.add(etag);
    }

    /** The next {@code n} requests answer 503. */
    public void unavailable(int n) {
        unavailable.set(n);
    }

    public void cdnIgnoresRange() {
        cdnIgnoresRange = true;
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    public void clearRequests() {
        requests.clear();
    }

    @Override
    public void close() {
        hub.stop(0);
        cdn.stop(0);
    }

    private void handle(String server, HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        requests.add(new Request(
                server,
                ex.getRequestMethod(),
                URLDecoder.decode(path, StandardCharsets.UTF_8),
                ex.getRequestHeaders()));
        try (ex) {
            if (unavailable.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                error(ex, 503, null, "Service Unavailable");
                return;
            }
            if (server.equals("cdn")) {
                Matcher m = CDN.matcher(path);
                byte[] bytes = m.matches() ? lfsStore.get(m.group(1)) : null;
                if (bytes == null) {
                    error(ex, 404, null, "NoSuchKey");
                } else {
                    serve(ex, m.group(1), bytes, !cdnIgnoresRange);
                }
                return;
            }
            Matcher api = API.matcher(path);
            Matcher resolve = RESOLVE.matcher(path);
            if (api.matches()) {
                RepoType type = api.group(1).equals("models") ? RepoType.MODEL : RepoType.DATASET;
                listing(ex, new RepoId(type, api.group(2)), URLDecoder.decode(api.group(3), StandardCharsets.UTF_8));
            } else if (resolve.matches()) {
                RepoType type = resolve.group(1) == null ? RepoType.MODEL : RepoType.DATASET;
                resolve(
                        ex,
                        new RepoId(type, resolve.group(2)),
                        URLDecoder.decode(resolve.group(3), StandardCharsets.UTF_8),
                        URLDecoder.decode(resolve.group(4), StandardCharsets.UTF_8));
            } else {
                error(ex, 404, null, "Not Found");
            }
        } catch (IOException | RuntimeException e) {
            // a cut connection is expected; anything else would show up as a failed test on the client side
            if (!(e instanceof IOException)) {
                e.printStackTrace();
            }
        }
    }

    private void listing(HttpExchange ex, RepoId repo, String revision) throws IOException {
        if (redirectRenamed(ex, repo)) {
            return;
        }
        String sha = commitOf(ex, repo, revision);
        if (sha == null) {
            return;
        }
        StringBuilder json = new StringBuilder("{\"id\":\"" + repo.id() + "\",\"sha\":\"" + sha + "\",\"siblings\":[");
        int i = 0;
        for (String f : commits.get(sha).keySet()) {
            json.append(i++ == 0 ? "" : ",")
                    .append("{\"rfilename\":\"")
                    .append(f)
                    .append("\"}");
        }
        json.append("]}");
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        ex.getResponseBody().write(body);
    }

    private void resolve(HttpExchange ex, RepoId repo, String revision, String file) throws IOException {
        if (redirectRenamed(ex, repo)) {
            return;
        }
        Set<String> allowed = gated.get(key(repo));
        String token = token(ex);
        if (allowed != null && (token == null || !allowed.contains(token))) {
            error(
                    ex,
                    token == null ? 401 : 403,
                    "GatedRepo",
                    "Access to model " + repo.id() + " is restricted."
                            + " You must have access to it and be authenticated to access it. Please log in.");
            return;
        }
        String sha = commitOf(ex, repo, revision);
        if (sha == null) {
            return;
        }
        Content c = commits.get(sha).get(file);
        ex.getResponseHeaders().set("X-Repo-Commit", sha);
        if (c == null) {
            error(ex, 404, "EntryNotFound", "Entry not found");
            return;
        }
        if (c.lfs()) {
            ex.getResponseHeaders().set("X-Linked-Etag", "\"" + c.etag() + "\"");
            ex.getResponseHeaders().set("X-Linked-Size", String.valueOf(c.bytes().length));
            ex.getResponseHeaders()
                    .set("ETag", "\"" + gitSha1(("pointer " + c.etag()).getBytes(StandardCharsets.UTF_8)) + "\"");
            ex.getResponseHeaders()
                    .set(
                            "Location",
                            "http://127.0.0.1:" + cdn.getAddress().getPort() + "/blobs/" + c.etag()
                                    + "?X-Amz-Signature=abc");
            noBody(ex, 302, 0);
            return;
        }
        serve(ex, c.etag(), c.bytes(), true);
    }

    /** The bytes of a file, with its ETag; a range request gets 206 unless {@code ranges} is false. */
    private void serve(HttpExchange ex, String etag, byte[] bytes, boolean ranges) throws IOException {
        Headers h = ex.getResponseHeaders();
        h.set("ETag", "\"" + etag + "\"");
        h.set("Accept-Ranges", "bytes");
        byte[] served = bytes;
        if (corrupt.contains(etag)) {
            served = bytes.clone();
            served[served.length / 2] ^= 1;
        }
        if (ex.getRequestMethod().equals("HEAD")) {
            noBody(ex, 200, bytes.length);
            return;
        }
        int from = 0;
        String range = ex.getRequestHeaders().getFirst("Range");
        if (range != null && ranges) {
            Matcher m = Pattern.compile("bytes=(\\d+)-").matcher(range);
            if (!m.matches() || Integer.parseInt(m.group(1)) >= bytes.length) {
                h.set("Content-Range", "bytes */" + bytes.length);
                noBody(ex, 416, 0);
                return;
            }
            from = Integer.parseInt(m.group(1));
            h.set("Content-Range", "bytes " + from + "-" + (bytes.length - 1) + "/" + bytes.length);
        }
        int length = bytes.length - from;
        ex.sendResponseHeaders(from > 0 ? 206 : 200, length);
        OutputStream out = ex.getResponseBody();
        if (cutOnce.remove(etag)) {
            out.write(served, from, length / 2);
            out.flush();
            throw new IOException("cut"); // closes the connection before the announced length
        }
        out.write(served, from, length);
    }

    private boolean redirectRenamed(HttpExchange ex, RepoId repo) throws IOException {
        String now = renamed.get(key(repo));
        if (now == null) {
            return false;
        }
        ex.getResponseHeaders().set("Location", ex.getRequestURI().getRawPath().replace(repo.id(), now));
        noBody(ex, 307, 0);
        return true;
    }

    /** The commit a revision names, or null after answering the error the Hub gives. */
    private String commitOf(HttpExchange ex, RepoId repo, String revision) throws IOException {
        Map<String, String> branches = refs.get(key(repo));
        if (branches == null) {
            boolean token = token(ex) != null;
            error(
                    ex,
                    token ? 404 : 401,
                    "RepoNotFound",
                    token ? "Repository not found" : "Invalid username or password.");
            return null;
        }
        String sha = branches.containsKey(revision)
                ? branches.get(revision)
                : repoCommits.get(key(repo)).contains(revision) ? revision : null;
        if (sha == null) {
            error(ex, 404, "RevisionNotFound", "Invalid rev id: " + revision);
        }
        return sha;
    }

    private static String token(HttpExchange ex) {
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        return auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
    }

    private static void error(HttpExchange ex, int status, String code, String message) throws IOException {
        if (code != null) {
            ex.getResponseHeaders().set("X-Error-Code", code);
        }
        ex.getResponseHeaders().set("X-Error-Message", message);
        if (ex.getRequestMethod().equals("HEAD")) {
            noBody(ex, status, 0);
            return;
        }
        byte[] body = ("{\"error\":\"" + message + "\"}").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length);
        ex.getResponseBody().write(body);
    }

    /** A HEAD answer (or a redirect) that states a length without a body. */
    private static void noBody(HttpExchange ex, int status, long length) throws IOException {
        if (ex.getRequestMethod().equals("HEAD")) {
            ex.getResponseHeaders().set("Content-Length", String.valueOf(length));
        }
        ex.sendResponseHeaders(status, -1);
    }

    private static String key(RepoId repo) {
        return repo.type() + "/" + repo.id();
    }

    public static String sha256(byte[] b) {
        return digest("SHA-256", new byte[0], b);
    }

    public static String gitSha1(byte[] b) {
        return digest("SHA-1", ("blob " + b.length + "\0").getBytes(StandardCharsets.US_ASCII), b);
    }

    private static String digest(String algorithm, byte[] prefix, byte[] b) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            md.update(prefix);
            return HexFormat.of().formatHex(md.digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package org.pettingllms.hub;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where the Hub is, who we are on it and where its files go, read from the environment variables that Python's
 * huggingface_hub reads, with its defaults, so that both share one cache and one login. Built from a map
 * ({@code System.getenv()} in production) because a Java test cannot set environment variables.
 *
 * @param endpoint        {@code HF_ENDPOINT} without a trailing slash (default {@code https://huggingface.co})
 * @param token           the access token sent as {@code Authorization: Bearer}, or null for none
 * @param cacheDir        the hub cache root (see {@link #fromEnv})
 * @param offline         {@code HF_HUB_OFFLINE}: no network at all, the cache only
 * @param metadataTimeout {@code HF_HUB_ETAG_TIMEOUT}: the wait for a listing or a file's metadata (default 10 s)
 * @param downloadTimeout {@code HF_HUB_DOWNLOAD_TIMEOUT}: the longest wait for the next bytes of a download
 *                        (default 10 s)
 */
public record HubSettings(
        URI endpoint,
        String token,
        Path cacheDir,
        boolean offline,
        Duration metadataTimeout,
        Duration downloadTimeout) {
    public static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    /** The values huggingface_hub reads as true in a boolean variable (case-insensitive). */
    private static final Set<String> TRUE = Set.of("1", "ON", "YES", "TRUE");

    public HubSettings {
        String e = endpoint.toString();
        if (e.endsWith("/")) {
            endpoint = URI.create(e.replaceAll("/+$", ""));
        }
        if (token != null && token.isBlank()) {
            token = null;
        }
        cacheDir = cacheDir.toAbsolutePath().normalize();
    }

    /** The settings of this process: {@code fromEnv(System.getenv())}. */
    public static HubSettings fromEnv() {
        return fromEnv(System.getenv());
    }

    /**
     * The settings the variables in {@code env} give. The cache root is {@code HF_HUB_CACHE}, else (the older
     * name) {@code HUGGINGFACE_HUB_CACHE}, else {@code $HF_HOME/hub}, where {@code HF_HOME} defaults to
     * {@code $XDG_CACHE_HOME/huggingface}, else {@code ~/.cache/huggingface}. The token is {@code HF_TOKEN} (or the
     * older {@code HUGGING_FACE_HUB_TOKEN}), else the file {@code HF_TOKEN_PATH}, else {@code $HF_HOME/token}, which
     * is where {@code hf auth login} writes it. Offline mode: {@code HF_HUB_OFFLINE}, or when that is unset
     * {@code TRANSFORMERS_OFFLINE}, is {@code 1}, {@code true}, {@code yes} or {@code on}.
     */
    public static HubSettings fromEnv(Map<String, String> env) {
        Path home = path(env, env.getOrDefault("HOME", System.getProperty("user.home")));
        Path xdg = set(env, "XDG_CACHE_HOME") ? path(env, env.get("XDG_CACHE_HOME")) : home.resolve(".cache");
        Path hfHome = set(env, "HF_HOME") ? path(env, env.get("HF_HOME")) : xdg.resolve("huggingface");
        Path cache = set(env, "HF_HUB_CACHE")
                ? path(env, env.get("HF_HUB_CACHE"))
                : set(env, "HUGGINGFACE_HUB_CACHE")
                        ? path(env, env.get("HUGGINGFACE_HUB_CACHE"))
                        : hfHome.resolve("hub");
        String token = set(env, "HF_TOKEN")
                ? env.get("HF_TOKEN")
                : set(env, "HUGGING_FACE_HUB_TOKEN")
                        ? env.get("HUGGING_FACE_HUB_TOKEN")
                        : readToken(
                                set(env, "HF_TOKEN_PATH")
                                        ? path(env, env.get("HF_TOKEN_PATH"))
                                        : hfHome.resolve("token"));
        String offline = set(env, "HF_HUB_OFFLINE") ? env.get("HF_HUB_OFFLINE") : env.get("TRANSFORMERS_OFFLINE");
        String endpoint = set(env, "HF_ENDPOINT") ? env.get("HF_ENDPOINT").trim() : DEFAULT_ENDPOINT;
        URI uri;
        try {
            uri = URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new HubException(
                    HubException.Reason.SETTINGS,
                    "HF_ENDPOINT '" + endpoint + "' is not a URL; expected for example " + DEFAULT_ENDPOINT);
        }
        if (uri.getScheme() == null || uri.getHost() == null) {
            throw new HubException(
                    HubException.Reason.SETTINGS,
                    "HF_ENDPOINT '" + endpoint + "' is not an http(s) URL; expected for example " + DEFAULT_ENDPOINT);
        }
        return new HubSettings(
                uri,
                clean(token),
                cache,
                offline != null && TRUE.contains(offline.trim().toUpperCase(Locale.ROOT)),
                seconds(env, "HF_HUB_ETAG_TIMEOUT"),
                seconds(env, "HF_HUB_DOWNLOAD_TIMEOUT"));
    }

    /** These settings with another cache root (tests, and a {@code --cache-dir} if one is ever wanted). */
    public HubSettings withCacheDir(Path dir) {
        return new HubSettings(endpoint, token, dir, offline, metadataTimeout, downloadTimeout);
    }

    /** These settings in or out of offline mode. */
    public HubSettings withOffline(boolean off) {
        return new HubSettings(endpoint, token, cacheDir, off, metadataTimeout, downloadTimeout);
    }

    private static boolean set(Map<String, String> env, String name) {
        String v = env.get(name);
        return v != null && !v.isEmpty();
    }

    /** A path from a variable, with a leading {@code ~} expanded as the shell (and Python's expanduser) does. */
    private static Path path(Map<String, String> env, String value) {
        if (value.equals("~") || value.startsWith("~/")) {
            String home = env.getOrDefault("HOME", System.getProperty("user.home"));
            return Path.of(home + value.substring(1));
        }
        return Path.of(value);
    }

    private static String readToken(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new HubException(
                    HubException.Reason.SETTINGS,
                    "cannot read the Hugging Face token file " + file + ": " + e.getMessage());
        }
    }

    /** As huggingface_hub cleans a token: line breaks removed, surrounding blanks trimmed, empty means none. */
    private static String clean(String token) {
        if (token == null) {
            return null;
        }
        String t = token.replace("\r", "").replace("\n", "").strip();
        return t.isEmpty() ? null : t;
    }

    private static Duration seconds(Map<String, String> env, String name) {
        if (!set(env, name)) {
            return Duration.ofSeconds(10);
        }
        try {
            int s = Integer.parseInt(env.get(name).trim());
            if (s > 0) {
                return Duration.ofSeconds(s);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new HubException(
                HubException.Reason.SETTINGS,
                name + "='" + env.get(name) + "': expected a whole number of seconds > 0");
    }

    @Override
    public String toString() {
        // never print the token
        return "HubSettings[endpoint=" + endpoint + ", token=" + (token == null ? "none" : "set") + ", cacheDir="
                + cacheDir + ", offline=" + offline + "]";
    }
}

package org.pettingllms.hub;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The two digests the Hub names files by. */
final class Digests {
    private Digests() {}

    /** The sha256 of the file's bytes: an LFS file's etag. */
    static String sha256(Path file) throws IOException {
        return hex(digest("SHA-256", file, null));
    }

    /** Git's blob id: sha1 of {@code "blob <size>\0"} and the bytes, the etag of a file stored in git. */
    static String gitBlobSha1(Path file) throws IOException {
        byte[] header = ("blob " + Files.size(file) + "\0").getBytes(StandardCharsets.US_ASCII);
        return hex(digest("SHA-1", file, header));
    }

    /** What {@code meta.check()} compares with the etag, or null when only the size can be checked. */
    static String of(FileMeta.Check check, Path file) throws IOException {
        return switch (check) {
            case SHA256 -> sha256(file);
            case GIT_SHA1 -> gitBlobSha1(file);
            case SIZE_ONLY -> null;
        };
    }

    private static byte[] digest(String algorithm, Path file, byte[] prefix) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
        if (prefix != null) {
            md.update(prefix);
        }
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return md.digest();
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}

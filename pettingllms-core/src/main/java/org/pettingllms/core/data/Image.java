package org.pettingllms.core.data;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;

/**
 * An image in a prompt: its encoded bytes (PNG or JPEG) and media type. Two images are equal when their bytes are,
 * so prompts with the same picture are the same prompt (tree groups share one prefill). The bytes are what a sample
 * keeps: the learner decodes and preprocesses them again and recomputes the same logprobs from the same pixels.
 */
public final class Image {
    private final String mediaType;
    private final byte[] bytes;
    private final String sha256;

    public Image(String mediaType, byte[] bytes) {
        Objects.requireNonNull(mediaType, "mediaType");
        Objects.requireNonNull(bytes, "bytes");
        String type = mediaType.toLowerCase(Locale.ROOT);
        if (!type.equals("image/png") && !type.equals("image/jpeg")) {
            throw new IllegalArgumentException("images are image/png or image/jpeg, not '" + mediaType + "'");
        }
        if (bytes.length == 0) {
            throw new IllegalArgumentException("an image needs its bytes, got none");
        }
        this.mediaType = type;
        this.bytes = bytes.clone();
        this.sha256 = digest(this.bytes);
    }

    public static Image png(byte[] bytes) {
        return new Image("image/png", bytes);
    }

    /**
     * A {@code data:image/png;base64,...} or {@code data:image/jpeg;base64,...} URL (what chat APIs send); anything
     * else fails naming {@code field}.
     */
    public static Image fromDataUrl(String url, String field) {
        if (url == null || !url.startsWith("data:")) {
            throw new IllegalArgumentException(
                    field + ": only data: URLs (data:image/png;base64,...) are accepted," + " not a remote URL");
        }
        int comma = url.indexOf(',');
        String head = comma < 0 ? "" : url.substring(5, comma);
        if (comma < 0 || !head.endsWith(";base64")) {
            throw new IllegalArgumentException(field + ": expected data:<image/png|image/jpeg>;base64,<bytes>");
        }
        try {
            return new Image(
                    head.substring(0, head.length() - ";base64".length()),
                    Base64.getDecoder().decode(url.substring(comma + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
        }
    }

    public String mediaType() {
        return mediaType;
    }

    /** A copy of the encoded bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    public int size() {
        return bytes.length;
    }

    /** The bytes' SHA-256, hex: how transcripts and logs name an image. */
    public String sha256() {
        return sha256;
    }

    public String toDataUrl() {
        return "data:" + mediaType + ";base64," + Base64.getEncoder().encodeToString(bytes);
    }

    private static String digest(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Image i && i.sha256.equals(sha256) && Arrays.equals(i.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return sha256.hashCode();
    }

    @Override
    public String toString() {
        return mediaType + " (" + bytes.length + " bytes, sha256 " + sha256.substring(0, 12) + ")";
    }
}

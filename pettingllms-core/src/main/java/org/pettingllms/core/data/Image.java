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
    /**
     * The most pixels an image may have: a decoder allocates its whole raster (about 11 bytes a pixel on the way to
     * RGB), so a small file that declares 20000 x 20000 would ask for gigabytes. 25 million is a 6000 x 4000 photo;
     * models resize larger images down anyway.
     */
    public static final long MAX_PIXELS = 25_000_000L;
    /** The longest side an image may have. */
    public static final int MAX_SIDE = 16_384;

    /** Width and height in pixels. */
    public record Dimensions(int width, int height) {
        public long pixels() {
            return (long) width * height;
        }
    }

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

    /**
     * Width and height as the header says (a PNG's IHDR chunk, a JPEG's start-of-frame segment), read without
     * decoding, checked against {@link #MAX_PIXELS} and {@link #MAX_SIDE}: what to call before any decoder allocates
     * a raster. Fails naming {@code what} when there is no such header or the image is too large.
     */
    public static Dimensions checkedDimensions(byte[] bytes, String what) {
        Dimensions d = dimensions(bytes);
        if (d == null) {
            throw new IllegalArgumentException(what
                    + ": not a PNG or JPEG image (no PNG header or JPEG frame header in " + bytes.length + " bytes)");
        }
        if (d.width() < 1
                || d.height() < 1
                || d.width() > MAX_SIDE
                || d.height() > MAX_SIDE
                || d.pixels() > MAX_PIXELS) {
            throw new IllegalArgumentException(String.format(
                    "%s: the image is %d x %d pixels; at most %d a side and %,d pixels in all are decoded",
                    what, d.width(), d.height(), MAX_SIDE, MAX_PIXELS));
        }
        return d;
    }

    /** This image's {@link #checkedDimensions}. */
    public Dimensions checkedDimensions(String what) {
        return checkedDimensions(bytes, what);
    }

    /** Width and height from a PNG or JPEG header, or null when the bytes start with neither. */
    static Dimensions dimensions(byte[] b) {
        if (b.length >= 24
                && (b[0] & 0xFF) == 0x89
                && b[1] == 'P'
                && b[2] == 'N'
                && b[3] == 'G'
                && b[12] == 'I'
                && b[13] == 'H'
                && b[14] == 'D'
                && b[15] == 'R') {
            long w = u32(b, 16);
            long h = u32(b, 20);
            return new Dimensions((int) Math.min(w, Integer.MAX_VALUE), (int) Math.min(h, Integer.MAX_VALUE));
        }
        if (b.length >= 4 && (b[0] & 0xFF) == 0xFF && (b[1] & 0xFF) == 0xD8) {
            // the frame header that the first scan follows: a decoder skips a "tables only" image (a frame and an end
            // of image without a scan) and decodes the next, so a frame without its scan is no answer
            Dimensions frame = null;
            int i = 2;
            while (i + 3 < b.length) {
                if ((b[i] & 0xFF) != 0xFF) {
                    return null; // not at a marker: no frame header where one must be
                }
                int marker = b[i + 1] & 0xFF;
                if (marker == 0xFF) { // fill byte
                    i++;
                    continue;
                }
                if (marker == 0x01 || marker >= 0xD0 && marker <= 0xD7) {
                    i += 2; // markers without a segment
                    continue;
                }
                if (marker == 0xDA) {
                    return frame; // the first scan: the frame before it is the image decoded (null: none)
                }
                if (marker == 0xD9 || marker == 0xD8) {
                    return null; // an image ends (or another starts) before any scan: refused, not guessed
                }
                int length = ((b[i + 2] & 0xFF) << 8) | (b[i + 3] & 0xFF);
                boolean sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
                if (sof) {
                    if (i + 8 >= b.length || frame != null) {
                        return null; // cut short, or a second frame header before the scan
                    }
                    int h = ((b[i + 5] & 0xFF) << 8) | (b[i + 6] & 0xFF);
                    int w = ((b[i + 7] & 0xFF) << 8) | (b[i + 8] & 0xFF);
                    frame = new Dimensions(w, h);
                }
                if (length < 2) {
                    return null;
                }
                i += 2 + length;
            }
        }
        return null;
    }

    private static long u32(byte[] b, int at) {
        return ((long) (b[at] & 0xFF) << 24)
                | ((b[at + 1] & 0xFF) << 16)
                | ((b[at + 2] & 0xFF) << 8)
                | (b[at + 3] & 0xFF);
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

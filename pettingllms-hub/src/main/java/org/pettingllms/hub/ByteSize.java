package org.pettingllms.hub;

import java.util.Locale;

/** Sizes for people, in decimal units as the Hub's pages show them: {@code 999 B}, {@code 1.5 kB}, {@code 3.4 GB}. */
public final class ByteSize {
    private static final String[] UNITS = {"B", "kB", "MB", "GB", "TB", "PB"};

    private ByteSize() {}

    public static String format(long bytes) {
        if (bytes < 1000) {
            return bytes + " B";
        }
        double v = bytes;
        int u = 0;
        while (v >= 999.95 && u < UNITS.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
    }
}

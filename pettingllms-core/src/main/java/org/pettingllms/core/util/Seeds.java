package org.pettingllms.core.util;

/**
 * Derives independent, reproducible seeds from a base seed and a path of parts (problem id, role, turn ...).
 * Stable across JVMs and thread schedules: the result depends only on the inputs.
 */
public final class Seeds {
    private Seeds() {}

    public static long derive(long base, Object... parts) {
        long h = mix(base ^ 0x9E3779B97F4A7C15L);
        for (Object part : parts) {
            String s = String.valueOf(part);
            for (int i = 0; i < s.length(); i++) {
                h = mix(h ^ s.charAt(i));
            }
            h = mix(h ^ 0x1F); // separator, so ("ab","c") differs from ("a","bc")
        }
        return h;
    }

    /** SplitMix64's finaliser: a bijective 64-bit mix with good avalanche. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

package org.pettingllms.envs.data;

/** How answers are read and shown on one line: what tasks do to a model's reply before parsing it or showing it. */
public final class TextLines {
    private TextLines() {}

    /** An answer's first line, without the spaces around it (a reply is read up to its first line break). */
    public static String firstLine(String text) {
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl).strip();
    }

    /**
     * {@code s} on one line (each run of whitespace as one space), cut to {@code max} characters with {@code ...}
     * after: for transcripts and prompts that quote a reply or a passage.
     */
    public static String oneLine(String s, int max) {
        String line = s.strip().replaceAll("\\s+", " ");
        return line.length() > max ? line.substring(0, max) + "..." : line;
    }
}

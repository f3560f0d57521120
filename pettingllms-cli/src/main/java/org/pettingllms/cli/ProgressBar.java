package org.pettingllms.cli;

import java.io.PrintStream;
import org.pettingllms.core.rollout.RolloutProgress;
import org.pettingllms.hub.ByteSize;

/**
 * A one-line progress bar with rate and ETA on standard error, redrawn in place on a terminal
 * ({@code rollout [########------]  96/200  48% | 3.1/s | ETA 34s}). Without a terminal (logs, CI) it prints a
 * plain line every quarter instead, so logs stay readable. Thread-safe: rollouts report from many threads. A
 * bar of bytes ({@link #ofBytes}) shows sizes and a rate in bytes per second.
 */
final class ProgressBar implements RolloutProgress {
    private static final int WIDTH = 24;
    private static final long REDRAW_NANOS = 250_000_000L;

    private final String label;
    private final PrintStream err;
    private final boolean terminal;
    private final boolean bytes;
    private long start = System.nanoTime();
    private long lastDraw;
    private int lastQuarter;
    private boolean drawn;
    private int drawnLength;

    ProgressBar(String label) {
        this(label, System.err, System.console() != null);
    }

    ProgressBar(String label, PrintStream err, boolean terminal) {
        this(label, err, terminal, false);
    }

    ProgressBar(String label, PrintStream err, boolean terminal, boolean bytes) {
        this.label = label;
        this.err = err;
        this.terminal = terminal;
        this.bytes = bytes;
    }

    /** A bar whose counts are bytes, on standard error. */
    static ProgressBar ofBytes(String label) {
        return new ProgressBar(label, System.err, System.console() != null, true);
    }

    /** Starts timing a new phase (the ETA is per phase). */
    synchronized ProgressBar restart() {
        start = System.nanoTime();
        lastQuarter = 0;
        return this;
    }

    @Override
    public synchronized void episodeDone(int done, int total) {
        update(done, total);
    }

    synchronized void update(long done, long total) {
        long now = System.nanoTime();
        if (done == 1) {
            start = Math.min(start, now);
        }
        boolean last = done >= total;
        if (terminal) {
            if (last || now - lastDraw >= REDRAW_NANOS) {
                String line = line(done, total, now);
                err.print("\r" + line + " ".repeat(Math.max(0, drawnLength - line.length())));
                drawnLength = line.length();
                err.flush();
                drawn = true;
                lastDraw = now;
            }
            if (last) {
                clear();
            }
        } else {
            int quarter = (int) (4 * done / Math.max(1, total));
            if (quarter > lastQuarter && !last) {
                err.println(line(done, total, now));
                lastQuarter = quarter;
            }
            if (last) {
                lastQuarter = 0;
            }
        }
    }

    /** Removes a drawn bar so that the next printed line starts clean. */
    synchronized void clear() {
        if (terminal && drawn) {
            err.print("\r" + " ".repeat(Math.max(drawnLength, WIDTH + label.length() + 50)) + "\r");
            err.flush();
            drawn = false;
        }
    }

    String line(long done, long total, long now) {
        double frac = total == 0 ? 1 : Math.min(1, (double) done / total);
        int filled = (int) Math.round(frac * WIDTH);
        double seconds = (now - start) / 1e9;
        double rate = seconds > 0 ? done / seconds : 0;
        String eta = rate > 0 && done < total ? " | ETA " + duration((total - done) / rate) : "";
        if (bytes) {
            return String.format(
                    "%s [%s%s] %s/%s %3.0f%% | %s/s%s",
                    label,
                    "#".repeat(filled),
                    "-".repeat(WIDTH - filled),
                    ByteSize.format(done),
                    ByteSize.format(total),
                    100 * frac,
                    ByteSize.format((long) rate),
                    eta);
        }
        return String.format(
                "%s [%s%s] %d/%d %3.0f%% | %.1f/s%s",
                label, "#".repeat(filled), "-".repeat(WIDTH - filled), done, total, 100 * frac, rate, eta);
    }

    static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600
                ? String.format("%dh%02dm", s / 3600, s % 3600 / 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }
}

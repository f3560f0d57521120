package org.pettingllms.hub;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Ends a download whose bytes stopped coming: the JDK's HTTP client has a timeout for the answer's headers but none
 * between two reads of its body, so a connection that hangs mid-file would wait forever. When nothing arrived for
 * the limit, the reading thread is interrupted, which makes its blocked read throw; the download then resumes.
 */
final class StallGuard implements AutoCloseable {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "hub-stall-guard");
        t.setDaemon(true);
        return t;
    });

    private final Thread reader = Thread.currentThread();
    private final long limitNanos;
    private final ScheduledFuture<?> check;
    private volatile long last = System.nanoTime();
    private boolean closed;
    private boolean fired;

    StallGuard(Duration limit) {
        this.limitNanos = limit.toNanos();
        long period = Math.max(10, Math.min(1000, limit.toMillis() / 4));
        this.check = TIMER.scheduleAtFixedRate(this::check, period, period, TimeUnit.MILLISECONDS);
    }

    /** Bytes arrived. */
    void progressed() {
        last = System.nanoTime();
    }

    /** Whether the guard interrupted the reader (then a read's exception means "stalled"). */
    synchronized boolean fired() {
        return fired;
    }

    private synchronized void check() {
        if (!closed && !fired && System.nanoTime() - last > limitNanos) {
            fired = true;
            reader.interrupt();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        check.cancel(false);
        if (fired) {
            Thread.interrupted(); // the interrupt was ours: do not leak it to the caller
        }
    }
}

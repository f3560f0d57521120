package org.pettingllms.http;

import io.javalin.http.Handler;
import java.util.concurrent.Semaphore;

/**
 * {@code --max-concurrent}: at most {@code max} requests of the wrapped routes in flight; one more is refused at once
 * with a 429 (a {@link BadRequest}, written in the server's error format) instead of queueing behind the others.
 */
public final class Slots {
    private final int max;
    private final Semaphore free;

    public Slots(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("--max-concurrent must be >= 1, got " + max);
        }
        this.max = max;
        this.free = new Semaphore(max);
    }

    /** The most requests in flight. */
    public int max() {
        return max;
    }

    /** Requests in flight now. */
    public int inFlight() {
        return max - free.availablePermits();
    }

    /** {@code h} run only while a slot is free. */
    public Handler limited(Handler h) {
        return ctx -> {
            if (!free.tryAcquire()) {
                throw new BadRequest(429, null, "server busy: " + max + " requests in flight; retry later");
            }
            try {
                h.handle(ctx);
            } finally {
                free.release();
            }
        };
    }

    /** Takes a slot for work that outlives its request (a queued training request); false when none is free. */
    public boolean tryTake() {
        return free.tryAcquire();
    }

    public void release() {
        free.release();
    }
}

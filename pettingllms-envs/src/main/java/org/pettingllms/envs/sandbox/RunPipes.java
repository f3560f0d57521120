package org.pettingllms.envs.sandbox;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A sandboxed program's pipes, each served on a virtual thread so that a run never waits on one without a bound:
 * stdin written whole (the program may exit without reading it), stdout and stderr captured up to a cap, and the
 * wait for their end given a deadline, since a process the run could not reach may hold them open.
 */
final class RunPipes {
    private RunPipes() {}

    /** Writes {@code stdin} whole and closes the pipe: the program reads to its end, as from a file. */
    static void feed(OutputStream os, String stdin) {
        try (os) {
            os.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the program exited without reading all of its input: not an error of ours
        }
    }

    /** Whether {@code t} ended by {@code deadlineNanos} ({@link System#nanoTime()}). */
    static boolean join(Thread t, long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        return left > 0 && t.join(Duration.ofNanos(left)) || !t.isAlive();
    }

    /** Reads a stream up to a cap on a virtual thread; past the cap it calls {@code overflow} and drains. */
    static final class Capture {
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        private final Thread thread;

        Capture(InputStream is, int cap, Runnable overflow) {
            thread = Thread.ofVirtual().start(() -> {
                byte[] chunk = new byte[8192];
                boolean over = false;
                try (is) {
                    for (int n; (n = is.read(chunk)) >= 0; ) {
                        int keep = Math.min(n, cap - buf.size());
                        if (keep > 0) {
                            buf.write(chunk, 0, keep);
                        }
                        if (keep < n && !over) {
                            over = true;
                            overflow.run();
                        }
                    }
                } catch (IOException e) {
                    // the process was killed while we read: keep what arrived
                }
            });
        }

        /** Whether the stream ended by {@code deadlineNanos} ({@link System#nanoTime()}). */
        boolean join(long deadlineNanos) throws InterruptedException {
            return RunPipes.join(thread, deadlineNanos);
        }

        String text() {
            return buf.toString(StandardCharsets.UTF_8);
        }
    }
}

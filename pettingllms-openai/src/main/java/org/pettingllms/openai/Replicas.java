package org.pettingllms.openai;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The servers a sampler sends to: least outstanding requests first; a replica that fails {@code maxFailures}
 * times in a row is dropped for {@code cooldown} and re-admitted only after its {@code /health} answers 200.
 */
final class Replicas {
    /** One server and what the client knows about it. */
    static final class Replica {
        final URI uri;
        final AtomicInteger outstanding = new AtomicInteger();
        int consecutiveFailures;
        long downUntilNanos;
        boolean down;

        Replica(URI uri) {
            this.uri = uri;
        }

        @Override
        public String toString() {
            return uri.toString();
        }
    }

    private final List<Replica> replicas = new ArrayList<>();
    private final HttpClient http;
    private final int maxFailures;
    private final Duration cooldown;

    Replicas(List<URI> servers, HttpClient http, int maxFailures, Duration cooldown) {
        if (servers.isEmpty()) {
            throw new IllegalArgumentException("no servers given");
        }
        servers.forEach(u -> replicas.add(new Replica(u)));
        this.http = http;
        this.maxFailures = maxFailures;
        this.cooldown = cooldown;
    }

    List<Replica> all() {
        return List.copyOf(replicas);
    }

    /**
     * The admitted replica with the fewest requests in flight, not in {@code avoid} unless nothing else is left;
     * null when every replica is down. Re-admits a dropped replica whose cooldown is over and whose health check
     * passes.
     */
    Replica pick(Set<Replica> avoid) {
        readmit();
        Replica best = null;
        synchronized (this) {
            for (boolean allowAvoided : new boolean[] {false, true}) {
                for (Replica r : replicas) {
                    if (r.down || (!allowAvoided && avoid.contains(r))) {
                        continue;
                    }
                    if (best == null || r.outstanding.get() < best.outstanding.get()) {
                        best = r;
                    }
                }
                if (best != null) {
                    break;
                }
            }
            if (best != null) {
                best.outstanding.incrementAndGet();
            }
        }
        return best;
    }

    void done(Replica r, boolean ok) {
        r.outstanding.decrementAndGet();
        synchronized (this) {
            if (ok) {
                r.consecutiveFailures = 0;
            } else if (++r.consecutiveFailures >= maxFailures && !r.down) {
                r.down = true;
                r.downUntilNanos = System.nanoTime() + cooldown.toNanos();
            }
        }
    }

    private void readmit() {
        List<Replica> due = new ArrayList<>();
        synchronized (this) {
            for (Replica r : replicas) {
                if (r.down && System.nanoTime() >= r.downUntilNanos) {
                    r.downUntilNanos = System.nanoTime() + cooldown.toNanos(); // one health check per cooldown
                    due.add(r);
                }
            }
        }
        for (Replica r : due) {
            boolean healthy;
            try {
                HttpResponse<Void> res = http.send(
                        HttpRequest.newBuilder(r.uri.resolve("/health"))
                                .timeout(Duration.ofSeconds(2))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                healthy = res.statusCode() == 200;
            } catch (IOException e) {
                healthy = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (healthy) {
                synchronized (this) {
                    r.down = false;
                    r.consecutiveFailures = 0;
                }
            }
        }
    }
}

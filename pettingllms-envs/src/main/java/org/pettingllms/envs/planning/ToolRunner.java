package org.pettingllms.envs.planning;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.pettingllms.envs.sandbox.Execution;
import org.pettingllms.envs.sandbox.Sandbox;
import org.pettingllms.envs.sandbox.SandboxLimits;

/**
 * Runs the tool role's programs in the sandbox with the board on standard input. Programs are deterministic, so
 * results are cached by (program, board) for the run: the K candidates of a tree group that write the same program
 * cost one execution, and concurrent requests for the same pair wait for the one run in progress.
 */
public final class ToolRunner {
    /** Entries kept before the cache starts over (about a few MB of program text and output). */
    static final int MAX_ENTRIES = 50_000;

    /**
     * What a program did: its answer line (the first non-empty line it printed) or why there is none.
     *
     * @param output  the answer line, or empty
     * @param failure empty when the program exited normally and printed something; else {@code no output},
     *                {@code timeout}, or {@code error: } and the last line of its error output
     */
    public record Result(String output, String failure) {
        /** A program that exited normally and printed {@code line} (empty: it printed nothing). */
        public static Result printed(String line) {
            return new Result(line, line.isEmpty() ? "no output" : "");
        }

        public boolean ok() {
            return failure.isEmpty();
        }

        /** What the planner is shown: the output, or the failure. */
        public String shown() {
            return ok() ? output : failure;
        }
    }

    private record Key(String program, String stdin) {}

    private final Sandbox sandbox;
    private final SandboxLimits limits;
    private final ConcurrentHashMap<Key, CompletableFuture<Result>> cache = new ConcurrentHashMap<>();
    private final LongAdder requests = new LongAdder();
    private final LongAdder executions = new LongAdder();
    private final LongAdder cpuLimits = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final AtomicLong busyNanos = new AtomicLong();
    private final AtomicLong waitNanos = new AtomicLong();

    public ToolRunner(Sandbox sandbox, SandboxLimits limits) {
        this.sandbox = sandbox;
        this.limits = limits;
    }

    public Result run(String program, String stdin) {
        requests.increment();
        if (cache.size() > MAX_ENTRIES) {
            cache.clear();
        }
        CompletableFuture<Result> mine = new CompletableFuture<>();
        CompletableFuture<Result> existing = cache.putIfAbsent(new Key(program, stdin), mine);
        if (existing != null) {
            return existing.join();
        }
        try {
            long t0 = System.nanoTime();
            Execution e = sandbox.run(program, stdin, limits);
            // the call also waits for a free slot: only the execution's own wall time is time in the sandbox
            long total = System.nanoTime() - t0;
            long busy = Math.min(total, e.wallMs() * 1_000_000);
            busyNanos.addAndGet(busy);
            waitNanos.addAndGet(total - busy);
            executions.increment();
            if (e.status() == Execution.Status.CPU_LIMIT) {
                cpuLimits.increment();
            } else if (e.status() == Execution.Status.TIMEOUT) {
                timeouts.increment();
            }
            Result r = interpret(e);
            mine.complete(r);
            return r;
        } catch (RuntimeException ex) {
            cache.remove(new Key(program, stdin), mine);
            mine.completeExceptionally(ex);
            throw ex;
        }
    }

    static Result interpret(Execution e) {
        String line = e.stdout()
                .lines()
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .findFirst()
                .orElse("");
        if (line.length() > 200) {
            line = line.substring(0, 200);
        }
        return switch (e.status()) {
            case OK -> Result.printed(line);
            case TIMEOUT, CPU_LIMIT -> new Result("", "timeout");
            default -> {
                String last = e.stderr()
                        .strip()
                        .lines()
                        .reduce((a, b) -> b)
                        .orElse(e.status().why());
                yield new Result("", "error: " + (last.length() > 80 ? last.substring(0, 80) : last));
            }
        };
    }

    /**
     * Counters since the last call, for the step metrics: {@code tool/programs} (programs the tool role wrote),
     * {@code tool/executions} (those that ran; the rest were cache hits), {@code tool/cache_hit_rate} and
     * {@code tool/sandbox_s} (seconds the programs ran in the sandbox, summed over its slots: with {@code n} slots a
     * step's rollouts take at least {@code sandbox_s / n} seconds of sandbox time) and {@code tool/sandbox_wait_s}
     * (seconds programs waited for a free slot, summed over the programs); {@code tool/cpu_limits} (executions its
     * CPU-time limit stopped: the work limit, which load does not move) and {@code tool/timeouts} (executions the
     * wall clock stopped: only a program that waits reaches it, {@link SandboxLimits#forWork}), so that a step where
     * limits fired says so.
     */
    public Map<String, Double> drainMetrics() {
        long req = requests.sumThenReset();
        long exe = executions.sumThenReset();
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("tool/programs", (double) req);
        m.put("tool/executions", (double) exe);
        m.put("tool/cache_hit_rate", req == 0 ? 0.0 : (req - exe) / (double) req);
        m.put("tool/sandbox_s", busyNanos.getAndSet(0) / 1e9);
        m.put("tool/sandbox_wait_s", waitNanos.getAndSet(0) / 1e9);
        m.put("tool/cpu_limits", (double) cpuLimits.sumThenReset());
        m.put("tool/timeouts", (double) timeouts.sumThenReset());
        return m;
    }
}

package org.pettingllms.tinker.server;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.BadRequest;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Sessions and their training clients, from creation to release: a session lives while it sends heartbeats (the
 * reaper expires one silent past the timeout, and unloads its clients); a client holds one adapter, which no client
 * of another session may take, runs its requests in order on its own queue, and when unloaded drains that queue
 * before its adapter and optimizer state are freed.
 */
final class Sessions {
    /** A training client: its policy and the thread its requests run on, in order. */
    record Model(PolicyRef policy, ExecutorService queue, String session) {}

    private final EmbeddedEngine engine;
    private final TinkerServer.Options options;
    /** Where an unloaded client's queue is awaited before its state is freed. */
    private final ExecutorService background;
    /** Each session's last sign of life (System.nanoTime()). */
    private final Map<String, Long> sessions = new ConcurrentHashMap<>();
    /** Training clients unloaded (or whose session expired), so that their ids get a 404 that says why. */
    private final Map<String, String> gone = new ConcurrentHashMap<>();

    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tinker-sessions");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Model> models = new ConcurrentHashMap<>();
    /**
     * One lock per adapter, held by every training operation on it: two clients that train one adapter (a shared
     * policy) never interleave a forward-backward with an optimizer step or a save.
     */
    private final Map<PolicyRef, ReentrantLock> locks = new ConcurrentHashMap<>();
    /** Adapters whose last client was unloaded and whose state is not freed yet: no new client may take them. */
    private final Set<PolicyRef> releasing = ConcurrentHashMap.newKeySet();
    /** Unloaded clients whose queues are still draining, by adapter (guarded by {@code models}). */
    private final Map<PolicyRef, Integer> draining = new HashMap<>();

    Sessions(EmbeddedEngine engine, TinkerServer.Options options, ExecutorService background) {
        this.engine = engine;
        this.options = options;
        this.background = background;
    }

    /** Starts the reaper, which expires silent sessions a few times per timeout. */
    void start() {
        long every = Math.max(50, options.sessionTimeout().toMillis() / 4);
        reaper.scheduleAtFixedRate(this::expireSessions, every, every, TimeUnit.MILLISECONDS);
    }

    /** A new session's id. */
    String create() {
        String id = "session_" + shortId();
        sessions.put(id, System.nanoTime());
        return id;
    }

    /** A session's sign of life; an unknown or expired one is a 404. */
    void touch(String session) {
        if (sessions.computeIfPresent(session, (k, v) -> System.nanoTime()) == null) {
            throw new BadRequest(
                    404,
                    "session_id",
                    "unknown or expired session '" + session + "': create_session"
                            + " first (a session without a heartbeat for "
                            + options.sessionTimeout().toSeconds() + " s"
                            + " expires with its training clients)");
        }
    }

    /** A training client by id (a sign of life of its session); an unknown one is a 404 that says why. */
    Model model(String id) {
        Model m = models.get(id);
        if (m == null) {
            String why = gone.get(id);
            throw new BadRequest(
                    404, "model_id", "unknown model_id '" + id + "'" + (why == null ? "" : ": it was " + why));
        }
        touch(m.session());
        return m;
    }

    /**
     * A new training client {@code id} of {@code policy} in {@code session}: refused when the session holds its
     * most clients, another session's client trains the adapter, or the adapter is still being freed.
     */
    void open(String id, PolicyRef policy, String session) {
        String adapter = policy.adapter();
        synchronized (models) { // the checks and the put as one step: two sessions cannot both take one adapter
            long mine = models.values().stream()
                    .filter(o -> o.session().equals(session))
                    .count();
            if (mine >= options.maxModelsPerSession()) {
                throw new BadRequest(
                        429,
                        "session_id",
                        "session '" + session + "' holds " + mine + " training clients, the most this server keeps"
                                + " per session; unload_model the ones it no longer needs");
            }
            for (Map.Entry<String, Model> e : models.entrySet()) {
                if (e.getValue().policy().equals(policy)
                        && !e.getValue().session().equals(session)) {
                    throw new BadRequest( // 423, not 409 (which clients retry): waiting would not help soon
                            423,
                            "user_metadata.pettingllms_adapter",
                            "adapter '" + adapter + "' is trained by a client of another session; give each run"
                                    + " its own adapter names, or one server per run (a run that ended without"
                                    + " unload_model holds its adapters until its session expires, "
                                    + options.sessionTimeout().toMinutes() + " min)");
                }
            }
            if (releasing.contains(policy)) {
                throw new BadRequest(
                        409,
                        "user_metadata.pettingllms_adapter",
                        "adapter '" + adapter + "' is still being freed after its last client was unloaded; retry");
            }
            Model m = new Model(
                    policy,
                    Executors.newSingleThreadExecutor(r -> {
                        Thread t = new Thread(r, "tinker-" + id);
                        t.setDaemon(true);
                        return t;
                    }),
                    session);
            models.put(id, m);
        }
    }

    /** The lock every training operation on {@code policy}'s adapter holds. */
    ReentrantLock lock(PolicyRef policy) {
        return locks.computeIfAbsent(policy, k -> new ReentrantLock());
    }

    /**
     * Forgets a training client: no new request reaches it, what it queued finishes, then its adapter (unless
     * another client trains the same one) and its optimizer state are freed and its thread ends.
     */
    void unload(String id, String why) {
        Model m;
        synchronized (models) {
            m = models.remove(id);
            if (m == null) {
                return;
            }
            if (models.values().stream().noneMatch(o -> o.policy().equals(m.policy()))) {
                releasing.add(m.policy()); // no new client takes it until its state is freed
            }
            draining.merge(m.policy(), 1, Integer::sum);
        }
        gone.put(id, why);
        m.queue().shutdown();
        background.execute(() -> {
            try {
                m.queue().awaitTermination(1, TimeUnit.HOURS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            boolean free;
            synchronized (models) { // freed once the last client's queue and every earlier one have drained
                free = draining.merge(m.policy(), -1, Integer::sum) == 0
                        && models.values().stream().noneMatch(o -> o.policy().equals(m.policy()));
                if (draining.get(m.policy()) == 0) {
                    draining.remove(m.policy());
                }
            }
            if (free) {
                ReentrantLock lock = lock(m.policy());
                lock.lock();
                try {
                    engine.learner().release(m.policy());
                    engine.registry().removeAdapter(m.policy());
                } finally {
                    lock.unlock();
                }
                releasing.remove(m.policy());
            }
        });
    }

    /** Sessions silent past the timeout expire, their training clients unloaded. */
    private void expireSessions() {
        long now = System.nanoTime();
        sessions.forEach((session, seen) -> {
            if (now - seen > options.sessionTimeout().toNanos() && sessions.remove(session, seen)) {
                models.entrySet().stream()
                        .filter(e -> e.getValue().session().equals(session))
                        .map(Map.Entry::getKey)
                        .toList()
                        .forEach(id -> unload(id, "unloaded when its session expired without a heartbeat"));
            }
        });
    }

    /** Stops the reaper: no session expires after. */
    void stopReaper() {
        reaper.shutdownNow();
    }

    /** Stops every training client's queue, what runs on it interrupted. */
    void stopClients() {
        models.values().forEach(m -> m.queue().shutdownNow());
    }

    /** A random id of 122 bits: model and session ids are what a client holds, and cannot be guessed. */
    static String shortId() {
        return UUID.randomUUID().toString().replace("-", "");
    }
}

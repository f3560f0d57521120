package org.pettingllms.tinker.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.FinishReason;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.IntSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.http.Access;
import org.pettingllms.http.BadRequest;
import org.pettingllms.http.Fields;
import org.pettingllms.http.Http;
import org.pettingllms.http.JsonErrors;
import org.pettingllms.http.Slots;
import org.pettingllms.torch.engine.EmbeddedEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded engine behind the Tinker training API (JSON, as SDK versions up to 0.24 and SkyRL's server speak
 * it): LoRA training clients, {@code forward_backward} with the {@code ppo} loss, {@code forward}, {@code optim_step},
 * {@code save_weights} / {@code load_weights} (weights and optimizer state under the server's folder, so a restarted
 * server loads what an earlier one saved), {@code save_weights_for_sampler} and {@code asample}. Each training
 * client's requests run in arrival order; a request re-sent with the same {@code (model_id, seq_id)} gets the same
 * future ({@link TinkerFutures}: {@code retrieve_future} holds a poll up to 20 s, then answers {@code try_again}; a
 * failed request answers {@code {"error", "category"}}).
 *
 * <p>Limits, each refused by name: losses other than {@code ppo} for training ({@code cross_entropy} for forward
 * passes only), advantages that vary within a sequence, a LoRA rank other than the engine's, sampling from
 * sampler weights that later optimizer steps have replaced (the engine samples the live adapter). A datum's
 * completion starts at its first position with a non-zero logprob or advantage (Tinker marks prompt positions by
 * zeros); a datum with none changes nothing. A training request's {@code loss_fn_outputs} hold the logprobs of its
 * completion positions (computed with the rows' shared prompt passes, as the embedded learner trains) and 0 on the
 * masked prompt positions; a forward pass answers every position.
 */
public final class TinkerServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TinkerServer.class);
    /** The largest request body taken (Javalin's default is 1 MB). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,255}");
    /** The file beside a model's saved states that names the adapter that saved them. */
    private static final String OWNER = "adapter";

    /**
     * @param servedName the base model's name for clients
     * @param dir        where saved states live ({@code <dir>/<model_id>/weights/<name>})
     * @param loraRank   the engine's LoRA rank (training clients must ask for it)
     * @param seed       the engine's seed, which initialises its adapters (a client's {@code lora_config.seed} must
     *                   be it, or absent)
     */
    public record Options(
            String host,
            int port,
            String servedName,
            Path dir,
            int loraRank,
            long seed,
            Access access,
            Duration sessionTimeout,
            int maxConcurrent,
            int maxModelsPerSession,
            long maxSavedBytes) {
        public Options {
            if (maxConcurrent < 1 || port < 0 || port > 65535 || maxModelsPerSession < 1 || maxSavedBytes < 1) {
                throw new IllegalArgumentException("need maxConcurrent >= 1, a port in [0, 65535], at least one model"
                        + " per session and a positive saved-bytes quota");
            }
        }

        /** {@link #MAX_MODELS_PER_SESSION} training clients per session, {@link #MAX_SAVED_BYTES} saved. */
        public Options(
                String host,
                int port,
                String servedName,
                Path dir,
                int loraRank,
                long seed,
                Access access,
                Duration sessionTimeout,
                int maxConcurrent) {
            this(
                    host,
                    port,
                    servedName,
                    dir,
                    loraRank,
                    seed,
                    access,
                    sessionTimeout,
                    maxConcurrent,
                    MAX_MODELS_PER_SESSION,
                    MAX_SAVED_BYTES);
        }

        /**
         * Sessions expire after {@link #SESSION_TIMEOUT} without a heartbeat; {@link #MAX_CONCURRENT} requests
         * queued or running at once.
         */
        public Options(String host, int port, String servedName, Path dir, int loraRank, long seed, Access access) {
            this(host, port, servedName, dir, loraRank, seed, access, SESSION_TIMEOUT, MAX_CONCURRENT);
        }

        /** {@link Access#open()}. */
        public Options(String host, int port, String servedName, Path dir, int loraRank, long seed) {
            this(host, port, servedName, dir, loraRank, seed, Access.open());
        }
    }

    /**
     * Each route's fields: the SDK's request types (up to 0.24) and this project's learner's. Anything else is
     * refused by name, as the OpenAI routes do; fields the SDK sends that would change the numbers here are refused
     * by value where they are read ({@code prompt_logprobs}, {@code lora_config.train_unembed}, ...).
     */
    private static final Map<String, Set<String>> FIELDS = Map.ofEntries(
            Map.entry("create_session", Set.of("tags", "user_metadata", "sdk_version", "type", "project_id")),
            Map.entry("session_heartbeat", Set.of("session_id", "type")),
            Map.entry("unload_model", Set.of("model_id", "session_id", "type")),
            Map.entry(
                    "create_model",
                    Set.of("session_id", "model_seq_id", "base_model", "user_metadata", "lora_config", "type")),
            Map.entry("get_info", Set.of("model_id", "type")),
            Map.entry("forward_backward", Set.of("model_id", "seq_id", "forward_backward_input", "type")),
            Map.entry("forward", Set.of("model_id", "seq_id", "forward_input", "type")),
            Map.entry("optim_step", Set.of("model_id", "seq_id", "adam_params", "type")),
            Map.entry("save_weights", Set.of("model_id", "seq_id", "path", "ttl_seconds", "type")),
            Map.entry("load_weights", Set.of("model_id", "seq_id", "path", "optimizer", "type")),
            Map.entry(
                    "save_weights_for_sampler",
                    Set.of("model_id", "seq_id", "path", "ttl_seconds", "sampling_session_seq_id", "type")),
            Map.entry(
                    "asample",
                    Set.of(
                            "num_samples",
                            "prompt",
                            "sampling_params",
                            "base_model",
                            "model_path",
                            "sampling_session_id",
                            "seq_id",
                            "prompt_logprobs",
                            "topk_prompt_logprobs",
                            "record_stability_info",
                            "type")),
            Map.entry("retrieve_future", Set.of("request_id", "allow_metadata_only", "type")));

    private static final Set<String> LORA_FIELDS = Set.of("rank", "seed", "train_unembed", "train_mlp", "train_attn");
    private static final Set<String> ADAM_FIELDS =
            Set.of("learning_rate", "beta1", "beta2", "eps", "weight_decay", "grad_clip_norm");
    private static final Set<String> INPUT_FIELDS = Set.of("data", "loss_fn", "loss_fn_config");
    private static final Set<String> PPO_FIELDS = Set.of("clip_low_threshold", "clip_high_threshold");
    private static final Set<String> SAMPLING_FIELDS =
            Set.of("max_tokens", "seed", "stop", "temperature", "top_k", "top_p");

    /** Training clients one session may hold at once (a run holds one per trained policy). */
    public static final int MAX_MODELS_PER_SESSION = 64;

    /** Bytes of saved states ({@code save_weights}) the server keeps under its directory, all sessions together. */
    public static final long MAX_SAVED_BYTES = 16L << 30;

    /** {@code serve --max-concurrent}'s default. */
    public static final int MAX_CONCURRENT = 64;

    /** Tinker's SDK sends a heartbeat every 10 s; a session silent this long is gone, and its clients with it. */
    public static final Duration SESSION_TIMEOUT = Duration.ofMinutes(10);

    /** A training client: its policy and the thread its requests run on, in order. */
    private record Model(PolicyRef policy, ExecutorService queue, String session) {}

    /** Published sampler weights: which policy, at which version. */
    private record SamplerWeights(PolicyRef policy, long version) {}

    private final EmbeddedEngine engine;
    private final String model;
    private final Options options;
    private final Javalin app;
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
    /** Held while a state is checked against the quota and saved: saves from all sessions, one at a time. */
    private final ReentrantLock savesLock = new ReentrantLock();
    /** Adapters whose last client was unloaded and whose state is not freed yet: no new client may take them. */
    private final Set<PolicyRef> releasing = ConcurrentHashMap.newKeySet();
    /** Unloaded clients whose queues are still draining, by adapter (guarded by {@code models}). */
    private final Map<PolicyRef, Integer> draining = new java.util.HashMap<>();

    private final TinkerFutures futures;
    private final Map<String, SamplerWeights> samplers = new ConcurrentHashMap<>();
    private final ExecutorService sampling = Executors.newVirtualThreadPerTaskExecutor();

    /** @param model the engine's model name (its {@code policy.model}) */
    public TinkerServer(EmbeddedEngine engine, String model, Options options) {
        this.engine = engine;
        this.model = model;
        this.options = options;
        this.futures = new TinkerFutures(20_000, 30_000, new Slots(options.maxConcurrent()));
        this.app = Javalin.create(config -> {
            config.jetty.host = options.host();
            config.jetty.port = options.port();
            config.startup.showJavalinBanner = false;
            // a forward_backward carries a mini-batch's datums: clients chunk them (the SDK at 5 MB)
            options.access().install(config, Set.of("/api/v1/healthz"));
            config.jetty.modifyServer(s -> s.setErrorHandler(new JsonErrors(
                    (status, message) -> json().put("detail", message).toString())));
            config.routes.get("/api/v1/healthz", ctx -> ok(ctx, json().put("status", "ok")));
            config.routes.post("/api/v1/client/config", ctx -> ok(ctx, json().put("pjwt_auth_enabled", false)));
            config.routes.get("/api/v1/get_server_capabilities", ctx -> {
                ObjectNode r = json();
                r.putArray("supported_models").addObject().put("model_name", options.servedName());
                ok(ctx, r);
            });
            config.routes.post("/api/v1/create_session", this::createSession);
            config.routes.post("/api/v1/session_heartbeat", this::heartbeat);
            config.routes.post("/api/v1/unload_model", this::unloadModel);
            config.routes.post("/api/v1/create_model", this::createModel);
            config.routes.post("/api/v1/get_info", this::info);
            config.routes.post(
                    "/api/v1/forward_backward", client((ctx, q) -> train(ctx, q, "forward_backward_input", true)));
            config.routes.post("/api/v1/forward", client((ctx, q) -> train(ctx, q, "forward_input", false)));
            config.routes.post("/api/v1/optim_step", client(this::optimStep));
            config.routes.post("/api/v1/save_weights", client(this::saveWeights));
            config.routes.post("/api/v1/load_weights", client(this::loadWeights));
            config.routes.post("/api/v1/save_weights_for_sampler", client(this::saveForSampler));
            config.routes.post("/api/v1/asample", this::sample);
            config.routes.post("/api/v1/retrieve_future", this::retrieve);
            config.routes.exception(BadRequest.class, (e, ctx) -> detail(ctx, e.status, e.getMessage()));
            config.routes.exception(
                    io.javalin.http.HttpResponseException.class,
                    (e, ctx) -> detail(ctx, e.getStatus(), e.getMessage()));
            // the engine's own checks of a request's values (a sampling parameter out of range): the client's input
            config.routes.exception(IllegalArgumentException.class, (e, ctx) -> detail(ctx, 400, e.getMessage()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.warn("{} failed", ctx.path(), e);
                detail(ctx, 500, e.toString());
            });
            config.routes.error(404, "*", ctx -> {
                String type = ctx.res().getContentType();
                if (type == null || !type.startsWith("application/json")) {
                    detail(ctx, 404, "no route " + ctx.method() + " " + ctx.path());
                }
            });
        });
    }

    public TinkerServer start() {
        long every = Math.max(50, options.sessionTimeout().toMillis() / 4);
        reaper.scheduleAtFixedRate(this::expireSessions, every, every, TimeUnit.MILLISECONDS);
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + app.port());
    }

    private static ObjectNode json() {
        return Http.JSON.createObjectNode();
    }

    /** The request's JSON body, its fields checked against its route's ({@link #FIELDS}). */
    private static JsonNode body(Context ctx) {
        JsonNode body = Http.body(ctx);
        String route = ctx.path().substring(ctx.path().lastIndexOf('/') + 1);
        Fields.onlyKnown(body, FIELDS.get(route), route);
        return body;
    }

    private static void ok(Context ctx, JsonNode body) throws Exception {
        Http.json(ctx, 200, body);
    }

    /** FastAPI's error body, as SkyRL's server answers. */
    private static void detail(Context ctx, int status, String message) {
        ctx.status(status)
                .contentType("application/json")
                .result(json().put("detail", message).toString());
    }

    private void createSession(Context ctx) throws Exception {
        body(ctx);
        String id = "session_" + shortId();
        sessions.put(id, System.nanoTime());
        ok(ctx, json().put("type", "create_session").put("session_id", id));
    }

    private void createModel(Context ctx) throws Exception {
        JsonNode body = body(ctx);
        String session = Fields.text(body, "session_id", "");
        touch(session);
        String base = Fields.text(body, "base_model", "");
        if (!serves(base)) {
            throw BadRequest.field(
                    "base_model", "this server trains '" + options.servedName() + "', not '" + base + "'");
        }
        JsonNode lora = Fields.object(body, "lora_config");
        Fields.onlyKnown(lora, LORA_FIELDS, "create_model", "lora_config.");
        int rank = Fields.integer(lora, "rank", "lora_config.rank", -1, -1, Integer.MAX_VALUE);
        if (rank != options.loraRank()) {
            throw BadRequest.field(
                    "lora_config.rank",
                    "this server's engine trains LoRA rank " + options.loraRank() + ", got " + rank);
        }
        Long seed = Fields.longInteger(lora, "seed", "lora_config.seed", null);
        if (seed != null && seed != options.seed()) {
            throw BadRequest.field(
                    "lora_config.seed",
                    "this server initialises adapters with seed " + options.seed() + " (serve --seed), got " + seed
                            + "; start it with the run's run.seed");
        }
        if (Fields.bool(lora, "train_unembed", "lora_config.train_unembed", false)) {
            throw BadRequest.field("lora_config.train_unembed", "this server's adapters do not train the unembedding");
        }
        if (!Fields.bool(lora, "train_mlp", "lora_config.train_mlp", true)
                || !Fields.bool(lora, "train_attn", "lora_config.train_attn", true)) {
            throw BadRequest.field(
                    "lora_config", "this server's adapters train the layers its engine names (engine.loraTargets)");
        }
        JsonNode meta = Fields.object(body, "user_metadata");
        String id = "model_" + shortId();
        // a client may name its adapter (this project's learner does: the same name initialises the same LoRA)
        String adapter = Fields.text(meta, "pettingllms_adapter", "user_metadata.pettingllms_adapter", id);
        if (!NAME.matcher(adapter).matches()) {
            throw BadRequest.field("user_metadata.pettingllms_adapter", "letters, digits, '_' and '-' only");
        }
        PolicyRef policy = new PolicyRef(model, adapter);
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
            createClient(id, policy, session);
        }
        submit(ctx, null, 0, () -> json().put("model_id", id).put("type", "create_model"));
    }

    private void createClient(String id, PolicyRef policy, String session) {
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

    /** A client may name the base model by its served name, its directory, or the directory's own name. */
    private boolean serves(String name) {
        if (name.isEmpty()) {
            return false;
        }
        Path dir = Path.of(model).toAbsolutePath().normalize();
        return name.equals(options.servedName())
                || name.equals(model)
                || (dir.getFileName() != null && name.equals(dir.getFileName().toString()))
                || (!name.contains(":")
                        && Path.of(name).toAbsolutePath().normalize().equals(dir));
    }

    private void info(Context ctx) throws Exception {
        String id = Fields.text(body(ctx), "model_id", null);
        model(id);
        ObjectNode r = json().put("type", "get_info").put("model_id", id);
        r.putObject("model_data").put("model_name", options.servedName()).put("tokenizer_id", options.servedName());
        r.put("is_lora", true).put("lora_rank", options.loraRank()).put("model_name", options.servedName());
        ok(ctx, r);
    }

    private Model model(String id) {
        Model m = models.get(id);
        if (m == null) {
            String why = gone.get(id);
            throw new BadRequest(
                    404, "model_id", "unknown model_id '" + id + "'" + (why == null ? "" : ": it was " + why));
        }
        touch(m.session());
        return m;
    }

    /** A session's sign of life; an unknown or expired one is a 404. */
    private void touch(String session) {
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

    private void heartbeat(Context ctx) throws Exception {
        touch(Fields.text(body(ctx), "session_id", null));
        ok(ctx, json().put("type", "session_heartbeat"));
    }

    /** Tinker's {@code unload_model}: the client's queue drains, then its adapter and training state are freed. */
    private void unloadModel(Context ctx) throws Exception {
        JsonNode body = body(ctx);
        String id = Fields.text(body, "model_id", null);
        Model m = model(id);
        String session = Fields.text(body, "session_id", m.session());
        if (!session.equals(m.session())) {
            throw new BadRequest(403, "session_id", "model '" + id + "' belongs to another session");
        }
        unload(id, "unloaded");
        String request =
                futures.submit(null, () -> json().put("type", "unload_model").put("model_id", id), sampling);
        ok(ctx, json().put("request_id", request));
    }

    /**
     * Forgets a training client: no new request reaches it, what it queued finishes, then its adapter (unless
     * another client trains the same one) and its optimizer state are freed and its thread ends.
     */
    private void unload(String id, String why) {
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
        sampling.execute(() -> {
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

    /**
     * Runs {@code op} on the model's queue (or the sampling pool when {@code modelId} is null) and answers its
     * future's id; a request already seen under the same {@code (model_id, seq_id)} gets its first future's id.
     */
    private void submit(Context ctx, String modelId, int seq, Supplier<ObjectNode> op) throws Exception {
        String key = modelId == null || seq <= 0 ? null : modelId + "#" + seq;
        ExecutorService on = modelId == null ? sampling : model(modelId).queue();
        ok(ctx, json().put("request_id", futures.submit(key, op, on)));
    }

    /** A training client's request: its body, the client's id and model, and its {@code seq_id}. */
    private record ClientRequest(JsonNode body, String id, Model model, int seq) {}

    /** A handler of a training client's request. */
    @FunctionalInterface
    private interface ClientHandler {
        void handle(Context ctx, ClientRequest q) throws Exception;
    }

    /**
     * A training client's route: the client looked up, and a request re-sent under a known {@code (model_id,
     * seq_id)} answered with its first future before any check, so a retry is never refused or run twice.
     */
    private Handler client(ClientHandler handler) {
        return ctx -> {
            JsonNode body = body(ctx);
            String id = Fields.text(body, "model_id", null);
            Model m = model(id);
            int seq = Fields.integer(body, "seq_id", 0, 0, Integer.MAX_VALUE);
            String known = seq > 0 ? futures.known(id + "#" + seq) : null;
            if (known != null) {
                ok(ctx, json().put("request_id", known));
            } else {
                handler.handle(ctx, new ClientRequest(body, id, m, seq));
            }
        };
    }

    private void submit(Context ctx, ClientRequest q, Supplier<ObjectNode> op) throws Exception {
        ReentrantLock lock = lock(q.model().policy()); // not synchronized: a virtual thread waits for it unpinned
        submit(ctx, q.id(), q.seq(), () -> {
            lock.lock();
            try {
                return op.get();
            } finally {
                lock.unlock();
            }
        });
    }

    private ReentrantLock lock(PolicyRef policy) {
        return locks.computeIfAbsent(policy, k -> new ReentrantLock());
    }

    /** Held without a server thread: the answer is written when the result arrives or the hold ends. */
    private void retrieve(Context ctx) throws Exception {
        JsonNode body = body(ctx);
        Fields.bool(body, "allow_metadata_only", false);
        CompletableFuture<ObjectNode> answer = futures.pollAsync(Fields.text(body, "request_id", null));
        ctx.future(() -> answer.thenAccept(
                r -> ctx.status(200).contentType("application/json").result(r.toString())));
    }

    private void train(Context ctx, ClientRequest q, String inputKey, boolean backward) throws Exception {
        JsonNode input = Fields.object(q.body(), inputKey);
        Fields.onlyKnown(input, INPUT_FIELDS, inputKey, inputKey + ".");
        String loss = Fields.text(input, "loss_fn", inputKey + ".loss_fn", null);
        if (backward && !loss.equals("ppo")) {
            throw BadRequest.field(inputKey + ".loss_fn", "this server trains with 'ppo' only, got '" + loss + "'");
        }
        if (!backward && !loss.equals("cross_entropy") && !loss.equals("ppo")) {
            throw BadRequest.field(inputKey + ".loss_fn", "forward passes take 'cross_entropy' or 'ppo'");
        }
        List<TinkerDatum> data = TinkerDatum.read(
                Fields.array(input, "data", inputKey + ".data"), inputKey + ".data", backward, vocab(), context());
        String config = inputKey + ".loss_fn_config";
        JsonNode cfg = Fields.object(input, "loss_fn_config", config);
        Fields.onlyKnown(cfg, PPO_FIELDS, loss, config + ".");
        double low = Fields.number(cfg, "clip_low_threshold", config + ".clip_low_threshold", 0.8, 0, 1);
        double high = Fields.number(cfg, "clip_high_threshold", config + ".clip_high_threshold", 1.2, 1, 1e6);
        if (!(low > 0)) {
            throw BadRequest.field(config, "need 0 < clip_low_threshold <= 1 <= clip_high_threshold");
        }
        submit(ctx, q, () -> {
            Learner learner = engine.learner();
            List<FloatSeq> now;
            double sum = 0;
            if (backward) {
                List<TrainExample> rows = new ArrayList<>();
                List<Integer> rowOf = new ArrayList<>(); // each datum's row, -1 for one without a completion
                long tokens = 0;
                for (TinkerDatum s : data) {
                    tokens += s.start() < 0 ? 0 : s.targets().length - s.start();
                }
                for (TinkerDatum s : data) {
                    if (s.start() < 0) {
                        rowOf.add(-1); // all zeros: no completion, no gradient
                        continue;
                    }
                    int[] prompt = new int[s.start() + 1];
                    System.arraycopy(s.tokens(), 0, prompt, 0, s.start() + 1);
                    int c = s.targets().length - s.start();
                    int[] completion = new int[c];
                    float[] old = new float[c];
                    System.arraycopy(s.targets(), s.start(), completion, 0, c);
                    for (int k = 0; k < c; k++) {
                        old[k] = (float) s.logprobs()[s.start() + k];
                    }
                    rowOf.add(rows.size());
                    // the service sums token losses; the learner's token mean times the token count is that sum
                    rows.add(new TrainExample(
                            IntSeq.of(prompt), IntSeq.of(completion), FloatSeq.of(old), s.advantage() * tokens));
                }
                // the completions' logprobs before the update (rows sharing a prompt share its pass); the prompt
                // positions, masked by zeros, answer 0
                List<FloatSeq> rowLogprobs =
                        rows.isEmpty() ? List.of() : learner.logprobs(q.model().policy(), rows);
                now = new ArrayList<>(data.size());
                for (int i = 0; i < data.size(); i++) {
                    TinkerDatum s = data.get(i);
                    float[] lp = new float[s.targets().length];
                    if (rowOf.get(i) >= 0) {
                        float[] c = rowLogprobs.get(rowOf.get(i)).toArray();
                        System.arraycopy(c, 0, lp, s.start(), c.length);
                    }
                    now.add(FloatSeq.of(lp));
                }
                if (!rows.isEmpty()) {
                    sum = learner.forwardBackward(
                                    q.model().policy(),
                                    rows,
                                    new LossConfig(1 - low, high - 1, LossConfig.Aggregation.TOKEN_MEAN, 0, 0))
                            .loss();
                }
            } else {
                // every position's logprob: a forward pass answers them all
                List<TrainExample> all = new ArrayList<>(data.size());
                for (TinkerDatum s : data) {
                    all.add(new TrainExample(
                            IntSeq.of(s.tokens()[0]),
                            IntSeq.of(s.targets()),
                            FloatSeq.of(new float[s.targets().length]),
                            0));
                }
                now = learner.logprobs(q.model().policy(), all);
                for (int i = 0; i < data.size(); i++) {
                    for (int k = 0; k < data.get(i).targets().length; k++) {
                        sum -= now.get(i).get(k) * data.get(i).weights()[k];
                    }
                }
            }
            ObjectNode r = json().put("loss_fn_output_type", "ArrayRecord");
            ArrayNode outs = r.putArray("loss_fn_outputs");
            for (FloatSeq lp : now) {
                ObjectNode t = outs.addObject().putObject("logprobs");
                ArrayNode d = t.putArray("data");
                for (int k = 0; k < lp.size(); k++) {
                    d.add(lp.get(k));
                }
                t.put("dtype", "float32").putArray("shape").add(lp.size());
            }
            r.putObject("metrics").put("loss:sum", sum);
            return r;
        });
    }

    private void optimStep(Context ctx, ClientRequest q) throws Exception {
        JsonNode a = Fields.object(q.body(), "adam_params");
        Fields.onlyKnown(a, ADAM_FIELDS, "optim_step", "adam_params.");
        double clip = Fields.number(a, "grad_clip_norm", "adam_params.grad_clip_norm", 0, 0, Double.MAX_VALUE);
        OptimParams params;
        try {
            params = new OptimParams(
                    Fields.number(a, "learning_rate", "adam_params.learning_rate", 1e-4, 0, 1e3),
                    Fields.number(a, "beta1", "adam_params.beta1", 0.9, 0, 1),
                    Fields.number(a, "beta2", "adam_params.beta2", 0.95, 0, 1),
                    Fields.number(a, "eps", "adam_params.eps", 1e-12, 0, 1),
                    Fields.number(a, "weight_decay", "adam_params.weight_decay", 0, 0, 1e3),
                    clip > 0 ? clip : Double.MAX_VALUE);
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("adam_params", e.getMessage());
        }
        submit(ctx, q, () -> {
            Learner.OptimStats o = engine.learner().optimStep(q.model().policy(), params);
            ObjectNode r = json().put("type", "optim_step");
            r.putObject("metrics")
                    .put("grad_norm", o.gradNorm())
                    .put("learning_rate", o.learningRate())
                    .put("skipped", o.skipped() ? 1.0 : 0.0);
            return r;
        });
    }

    private void saveWeights(Context ctx, ClientRequest q) throws Exception {
        String name = name(q.body(), "path");
        Path dir = options.dir().resolve(q.id()).resolve("weights").resolve(name);
        if (Files.exists(dir)) {
            throw new BadRequest(409, "path", "checkpoint '" + name + "' already exists");
        }
        long saved = savedBytes();
        if (saved >= options.maxSavedBytes()) {
            throw new BadRequest(
                    507,
                    "path",
                    "the server's saved states hold " + saved + " bytes, its quota is " + options.maxSavedBytes()
                            + "; remove old states under " + options.dir() + " or start it with a larger quota");
        }
        submit(ctx, q, () -> {
            // the check above answers at once; this one, with every other save waiting, keeps concurrent saves from
            // all passing it: the quota is passed by at most the one state that found it unreached
            savesLock.lock();
            try {
                if (Files.exists(dir)) { // a save of the same name that waited for this one's turn
                    throw new IllegalArgumentException("checkpoint '" + name + "' already exists");
                }
                long now = savedBytes();
                if (now >= options.maxSavedBytes()) {
                    throw new IllegalArgumentException("the server's saved states reached its quota of "
                            + options.maxSavedBytes() + " bytes (" + now + ") while this save waited for another");
                }
                engine.learner().save(q.model().policy(), dir);
                // which adapter saved it: a checkpoint loads into a client of that adapter only
                Files.writeString(
                        options.dir().resolve(q.id()).resolve(OWNER),
                        q.model().policy().adapter());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            } finally {
                savesLock.unlock();
            }
            return json().put("path", "tinker://" + q.id() + "/weights/" + name).put("type", "save_weights");
        });
    }

    private void loadWeights(Context ctx, ClientRequest q) throws Exception {
        String path = Fields.text(q.body(), "path", null);
        String[] parts = path.startsWith("tinker://") ? path.substring(9).split("/") : new String[0];
        if (parts.length != 3
                || !parts[1].equals("weights")
                || !NAME.matcher(parts[0]).matches()
                || !NAME.matcher(parts[2]).matches()) {
            throw BadRequest.field("path", "expected tinker://<model_id>/weights/<name>, got '" + path + "'");
        }
        Path dir = options.dir().resolve(parts[0]).resolve("weights").resolve(parts[2]);
        if (!Files.isDirectory(dir)) {
            throw new BadRequest(404, "path", "no checkpoint " + path + " under " + options.dir());
        }
        Path owner = options.dir().resolve(parts[0]).resolve(OWNER);
        if (Files.isRegularFile(owner)
                && !Files.readString(owner).equals(q.model().policy().adapter())) {
            throw new BadRequest(
                    403,
                    "path",
                    "checkpoint " + path + " was saved by a client of another adapter; a client loads its own"
                            + " adapter's states");
        }
        if (!Fields.bool(q.body(), "optimizer", true)) {
            throw BadRequest.field("optimizer", "this server loads weights with their optimizer state only");
        }
        submit(ctx, q, () -> {
            try {
                engine.learner().load(q.model().policy(), dir);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return json().put("path", path).put("model_id", q.id()).put("type", "load_weights");
        });
    }

    private void saveForSampler(Context ctx, ClientRequest q) throws Exception {
        if (!q.body().hasNonNull("path")) {
            throw BadRequest.field("path", "required: this server keeps named sampler weights only");
        }
        String name = name(q.body(), "path");
        submit(ctx, q, () -> {
            long version = engine.learner().publish(q.model().policy());
            String path = "tinker://" + q.id() + "/sampler_weights/" + name;
            samplers.values().removeIf(w -> w.policy().equals(q.model().policy())); // the engine holds the latest only
            samplers.put(path, new SamplerWeights(q.model().policy(), version));
            return json().put("path", path).put("type", "save_weights_for_sampler");
        });
    }

    private static String name(JsonNode body, String field) {
        String name = Fields.text(body, field, "");
        if (!NAME.matcher(name).matches()) {
            throw BadRequest.field(field, "a name of letters, digits, '_' and '-' (at most 255), got '" + name + "'");
        }
        return name;
    }

    private void sample(Context ctx) throws Exception {
        JsonNode body = body(ctx);
        PolicyRef policy;
        SamplerWeights weights = null;
        if (body.hasNonNull("sampling_session_id")) {
            throw BadRequest.field("sampling_session_id", "sampling sessions are not kept here: give model_path");
        }
        if (Fields.bool(body, "prompt_logprobs", false)) {
            throw BadRequest.field("prompt_logprobs", "prompt logprobs are not computed here: leave it out or false");
        }
        if (Fields.integer(body, "topk_prompt_logprobs", 0, 0, Integer.MAX_VALUE) != 0) {
            throw BadRequest.field("topk_prompt_logprobs", "prompt logprobs are not computed here: leave it 0");
        }
        Fields.bool(body, "record_stability_info", false);
        Fields.integer(body, "seq_id", 0, 0, Integer.MAX_VALUE);
        if (body.hasNonNull("model_path")) {
            String path = Fields.text(body, "model_path", null);
            SamplerWeights w = samplers.get(path);
            if (w == null) {
                throw new BadRequest(
                        404, "model_path", "no sampler weights " + path + " (this server keeps each client's latest)");
            }
            if (engine.registry().version(w.policy()) != w.version()) {
                throw BadRequest.field(
                        "model_path",
                        path + " was replaced by later optimizer steps: this server samples the latest published"
                                + " weights only; save them for sampling again");
            }
            policy = w.policy();
            weights = w;
        } else if (serves(Fields.text(body, "base_model", ""))) {
            policy = PolicyRef.of(model);
        } else {
            throw BadRequest.field("model_path", "give model_path or base_model '" + options.servedName() + "'");
        }
        int[] prompt = TinkerDatum.tokens(Fields.object(body, "prompt"), "prompt", vocab());
        if (prompt.length == 0) {
            throw BadRequest.field("prompt", "expected chunks of encoded_text tokens");
        }
        JsonNode sp = Fields.object(body, "sampling_params");
        Fields.onlyKnown(sp, SAMPLING_FIELDS, "asample", "sampling_params.");
        int maxTokens = Fields.integer(sp, "max_tokens", "sampling_params.max_tokens", 0, 0, Fields.MAX_TOKENS);
        if (maxTokens < 1) {
            throw BadRequest.field("sampling_params.max_tokens", "required, >= 1");
        }
        if ((long) prompt.length + maxTokens > context()) {
            throw BadRequest.field(
                    "sampling_params.max_tokens",
                    "this model's context is " + context() + " tokens; the prompt has " + prompt.length
                            + " and max_tokens asks for " + maxTokens + " more");
        }
        List<String> stop = new ArrayList<>();
        JsonNode s = sp.path("stop");
        if (s.isTextual()) {
            stop.add(s.asText());
        } else if (s.isArray()) {
            for (JsonNode x : s) {
                if (!x.isTextual()) {
                    throw BadRequest.field(
                            "sampling_params.stop", "stop strings only (the engine stops at EOS itself)");
                }
                stop.add(x.asText());
            }
        } else if (!s.isMissingNode() && !s.isNull()) {
            throw BadRequest.field("sampling_params.stop", "expected a string or a list of strings");
        }
        Long seed = Fields.longInteger(sp, "seed", "sampling_params.seed", null);
        SamplingParams params;
        try {
            params = new SamplingParams(
                    Fields.number(sp, "temperature", "sampling_params.temperature", 1, 0, 1e6),
                    Math.max(0, Fields.integer(sp, "top_k", "sampling_params.top_k", -1, -1, Integer.MAX_VALUE)),
                    Fields.number(sp, "top_p", "sampling_params.top_p", 1, 0, 1),
                    maxTokens,
                    stop,
                    seed != null ? seed : new java.util.Random().nextLong());
        } catch (IllegalArgumentException e) {
            throw BadRequest.field("sampling_params", e.getMessage());
        }
        int n = Fields.integer(body, "num_samples", 1, 1, Fields.MAX_N);
        SamplerWeights asked = weights;
        submit(ctx, null, 0, () -> {
            // again when it runs: an optimizer step may have come between the request and its turn
            if (asked != null && engine.registry().version(asked.policy()) != asked.version()) {
                throw new IllegalArgumentException("the sampler weights were replaced by an optimizer step before"
                        + " the request ran; save them for sampling again");
            }
            List<Completion> out = engine.sampler().sampleTokens(policy, prompt, n, params);
            ObjectNode r = json().put("type", "sample");
            ArrayNode seqs = r.putArray("sequences");
            for (Completion c : out) {
                ObjectNode q = seqs.addObject()
                        .put("stop_reason", c.finish() == FinishReason.LENGTH ? "length" : "stop")
                        // beyond Tinker's fields: which stop, and the text as the engine cut it at a stop string
                        .put("finish", c.finish() == FinishReason.STOP_STRING ? "stop_string" : "eos")
                        .put("text", c.text());
                ArrayNode t = q.putArray("tokens");
                for (int k = 0; k < c.tokens().size(); k++) {
                    t.add(c.tokens().get(k));
                }
                ArrayNode l = q.putArray("logprobs");
                for (int k = 0; k < c.logprobs().size(); k++) {
                    l.add(c.logprobs().get(k));
                }
            }
            return r;
        });
    }

    /** The served model's vocabulary: token ids outside it are refused before they reach the engine. */
    private int vocab() {
        return engine.registry().model(model).config().vocabSize();
    }

    /** The served model's context: a sequence or prompt + max_tokens longer than it is refused. */
    private int context() {
        return engine.registry().model(model).config().maxPositionEmbeddings();
    }

    /** Bytes of the saved states under the server's directory. */
    private long savedBytes() {
        if (!Files.isDirectory(options.dir())) {
            return 0;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(options.dir())) {
            return walk.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (java.io.IOException gone) {
                            return 0;
                        }
                    })
                    .sum();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }

    /** A random id of 122 bits: model and session ids are what a client holds, and cannot be guessed. */
    private static String shortId() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    @Override
    public void close() {
        app.stop();
        reaper.shutdownNow();
        sampling.shutdownNow();
        models.values().forEach(m -> m.queue().shutdownNow());
    }
}

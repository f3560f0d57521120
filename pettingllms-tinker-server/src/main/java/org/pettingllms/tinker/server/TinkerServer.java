package org.pettingllms.tinker.server;

import static org.pettingllms.tinker.server.Replies.detail;
import static org.pettingllms.tinker.server.Replies.json;

import io.javalin.Javalin;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.pettingllms.http.Access;
import org.pettingllms.http.BadRequest;
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
 * passes only), a LoRA rank other than the engine's, sampling from
 * sampler weights that later optimizer steps have replaced (the engine samples the live adapter). A datum's
 * completion starts at its first position with a non-zero logprob or advantage (Tinker marks prompt positions by
 * zeros); a datum with none changes nothing. A training request's {@code loss_fn_outputs} hold the logprobs of its
 * completion positions (computed with the rows' shared prompt passes, as the embedded learner trains) and 0 on the
 * masked prompt positions; a forward pass answers every position.
 *
 * <p>This class wires the server together and owns its lifecycle: the routes are declared in {@link TinkerRoutes},
 * sessions and training clients kept by {@link Sessions}, requests run by {@link Requests}.
 */
public final class TinkerServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TinkerServer.class);

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

    /** Training clients one session may hold at once (a run holds one per trained policy). */
    public static final int MAX_MODELS_PER_SESSION = 64;

    /** Bytes of saved states ({@code save_weights}) the server keeps under its directory, all sessions together. */
    public static final long MAX_SAVED_BYTES = 16L << 30;

    /** {@code serve --max-concurrent}'s default. */
    public static final int MAX_CONCURRENT = 64;

    /** Tinker's SDK sends a heartbeat every 10 s; a session silent this long is gone, and its clients with it. */
    public static final Duration SESSION_TIMEOUT = Duration.ofMinutes(10);

    private final Javalin app;
    private final Sessions sessions;
    private final ExecutorService sampling = Executors.newVirtualThreadPerTaskExecutor();

    /** @param model the engine's model name (its {@code policy.model}) */
    public TinkerServer(EmbeddedEngine engine, String model, Options options) {
        this(engine, model, options, List.of());
    }

    /**
     * The server with {@code extra} routes served beside the API's (the registration seam: a route is declared with
     * its schema, see {@link Route}); one that repeats a route's method and path is refused here, before anything
     * is served.
     */
    TinkerServer(EmbeddedEngine engine, String model, Options options, List<Route> extra) {
        ServedModel served = new ServedModel(engine, model, options);
        this.sessions = new Sessions(engine, options, sampling);
        Requests requests =
                new Requests(new TinkerFutures(20_000, 30_000, new Slots(options.maxConcurrent())), sessions, sampling);
        List<Route> all = new ArrayList<>(TinkerRoutes.of(
                served,
                sessions,
                requests,
                new SamplerWeights(p -> engine.registry().version(p)),
                new CheckpointPaths(options.dir())));
        all.addAll(extra);
        List<Route> routes = Route.distinct(all);
        this.app = Javalin.create(config -> {
            config.jetty.host = options.host();
            config.jetty.port = options.port();
            config.startup.showJavalinBanner = false;
            // a forward_backward carries a mini-batch's datums: clients chunk them (the SDK at 5 MB)
            options.access().install(config, Set.of(TinkerRoutes.HEALTH));
            config.jetty.modifyServer(s -> s.setErrorHandler(new JsonErrors(
                    (status, message) -> json().put("detail", message).toString())));
            Route.install(config, routes);
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
        sessions.start();
        app.start();
        return this;
    }

    public int port() {
        return app.port();
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + app.port());
    }

    @Override
    public void close() {
        app.stop();
        sessions.stopReaper();
        // the pool before the clients' queues: an unload still waiting there for a queue to drain is interrupted,
        // and frees nothing while the server closes
        sampling.shutdownNow();
        sessions.stopClients();
    }
}

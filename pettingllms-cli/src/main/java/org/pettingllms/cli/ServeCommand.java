package org.pettingllms.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.envs.search.Bm25Index;
import org.pettingllms.http.Access;
import org.pettingllms.hub.HubRef;
import org.pettingllms.hub.RepoType;
import org.pettingllms.serve.InferenceServer;
import org.pettingllms.serve.RetrievalServer;
import org.pettingllms.tinker.server.TinkerServer;
import org.pettingllms.torch.engine.EmbeddedEngine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code serve}: a model directory (and PEFT adapters) behind vLLM- and SGLang-compatible endpoints, until
 * interrupted. Trained runs serve their checkpoints with it; {@code train} can send its rollouts to it.
 */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        description = "Serve a model over HTTP with vLLM- and SGLang-compatible endpoints (completions with token ids"
                + " and logprobs, chat completions, /generate, LoRA adapter loading), or with --retriever a corpus"
                + " behind Search-R1's /retrieve.")
final class ServeCommand implements Callable<Integer> {
    @Option(
            names = "--model",
            description = "a Hugging Face model directory, or a Hub id"
                    + " org/name[@revision] (downloaded into the Hugging Face cache unless it is there)")
    String model;

    @Option(
            names = "--retriever",
            paramLabel = "CORPUS",
            description =
                    "instead of a model: BM25 over a corpus file (JSON Lines of {id, contents}) behind Search-R1's"
                            + " POST /retrieve, for search tasks (task.options.corpus: http://HOST:PORT)")
    Path retriever;

    @Option(
            names = "--index",
            defaultValue = "runs/search-index",
            description = "--retriever: where the corpus's index is cached (built once, again when the corpus changes)")
    Path index;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: loopback)")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "port (0: any free port)")
    int port;

    @Option(
            names = "--served-model-name",
            description =
                    "the model id clients use (default: the --model path, or" + " the Hub id without its revision)")
    String servedName;

    @Option(names = "--adapter", paramLabel = "NAME=DIR", description = "a PEFT adapter to load at start, repeatable")
    Map<String, Path> adapters = new LinkedHashMap<>();

    @Option(
            names = "--max-concurrent",
            defaultValue = "64",
            description = "generation requests in flight (with --tinker: requests queued or running) before 429")
    int maxConcurrent;

    @Option(names = "--device", defaultValue = "cpu", description = "cpu, gpu or gpu:N")
    String device;

    @Option(
            names = "--api-key",
            description = "require this key on every route but the health check ('Authorization: Bearer KEY' or"
                    + " 'X-API-Key: KEY'); default: the PETTINGLLMS_API_KEY environment variable, else none")
    String apiKey;

    @Option(
            names = "--allow-path-loading",
            description = "allow requests to load adapters or weights from paths on this machine"
                    + " (/v1/load_lora_adapter, /load_lora_adapter, /update_weights_from_disk; needed for train"
                    + " --set rollout.servers=...); off by default")
    boolean allowPathLoading;

    @Option(
            names = "--max-request-mb",
            defaultValue = "64",
            description = "largest request body in MiB; larger ones get a 413 before they are read")
    long maxRequestMb;

    @Option(
            names = "--tinker",
            description = "serve the Tinker training API instead (LoRA training clients, forward_backward with the"
                    + " ppo loss, optim_step, save/load_weights, sampling): train --set learner.kind=tinker"
                    + " --set learner.url=http://HOST:PORT trains through it")
    boolean tinker;

    @Option(
            names = "--tinker-state",
            defaultValue = "tinker-state",
            description = "--tinker: where saved states live (a restarted server loads what an earlier one saved)")
    Path tinkerState;

    @Option(
            names = "--seed",
            defaultValue = "1",
            description = "--tinker: seeds each LoRA's initialisation (a run's run.seed gives it the same start)")
    long seed;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if ((model == null) == (retriever == null)) {
            throw new ConfigException(
                    "serve needs --model (a model to serve) or --retriever (a corpus to search)," + " one of them");
        }
        if (retriever != null) {
            return serveRetriever();
        }
        String dir = new HubResolver(Main.env(spec)).model(model, "--model");
        if (!Files.isDirectory(Path.of(dir))) {
            throw new ConfigException("--model " + model + ": not a model directory (nor a Hub id org/name)");
        }
        // clients name a Hub model by its id, as vLLM does (and rollout.servedModel's default), not by a cache path
        String name = servedName != null
                ? servedName
                : dir.equals(model)
                        ? model
                        : HubRef.parse(model, RepoType.MODEL).repo().id();
        PrintWriter out = spec.commandLine().getOut();
        Access access = access();
        if (tinker) {
            if (!adapters.isEmpty()) {
                throw new IllegalArgumentException("--adapter: not with --tinker (training clients make their own)");
            }
            EmbeddedEngine.Settings served = EmbeddedEngine.Settings.serving(dir, device);
            EmbeddedEngine.Settings settings = new EmbeddedEngine.Settings(dir, served.engine(), seed, served.train());
            try (EmbeddedEngine engine = EmbeddedEngine.open(
                            settings, PolicyMap.forLevel(Level.L1, List.of("model"), dir, Set.of()));
                    TinkerServer server = new TinkerServer(
                            engine,
                            dir,
                            new TinkerServer.Options(
                                    host,
                                    port,
                                    name,
                                    tinkerState,
                                    served.engine().loraRank(),
                                    seed,
                                    access,
                                    TinkerServer.SESSION_TIMEOUT,
                                    maxConcurrent))) {
                server.start();
                out.printf(
                        "serving the Tinker training API for %s as '%s' on %s (LoRA rank %d, state in %s); Ctrl-C"
                                + " stops%n",
                        dir, name, server.uri(), served.engine().loraRank(), tinkerState);
                out.flush();
                CountDownLatch stop = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
                stop.await();
            }
            return 0;
        }
        try (EmbeddedEngine engine = EmbeddedEngine.forServing(dir, device);
                InferenceServer server = new InferenceServer(
                        engine, dir, new InferenceServer.Options(host, port, name, maxConcurrent, access))) {
            for (Map.Entry<String, Path> a : adapters.entrySet()) {
                server.loadAdapter(a.getKey(), a.getValue());
            }
            server.start();
            out.printf(
                    "serving %s as '%s' on %s (adapters: %s); Ctrl-C stops%n",
                    dir, name, server.uri(), adapters.keySet());
            out.flush();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** {@code --retriever}: the corpus's BM25 index behind {@code /retrieve}, until interrupted. */
    private int serveRetriever() throws InterruptedException {
        if (!Files.isRegularFile(retriever)) {
            throw new ConfigException("--retriever " + retriever + ": no such corpus file (expected JSON Lines of"
                    + " {\"id\", \"contents\"})");
        }
        if (tinker || !adapters.isEmpty()) {
            throw new ConfigException("--retriever: not with --tinker or --adapter (those serve a model)");
        }
        Access access = access();
        PrintWriter out = spec.commandLine().getOut();
        try (Bm25Index bm25 = Bm25Index.open(retriever, index);
                RetrievalServer server =
                        new RetrievalServer(bm25, new RetrievalServer.Options(host, port, maxConcurrent, access))) {
            server.start();
            out.printf(
                    "serving BM25 over %s (%d passages, index in %s) on %s/retrieve; Ctrl-C stops%n",
                    retriever, bm25.size(), index, server.uri());
            out.flush();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
    }

    /** The API key and request limits every server of this command keeps. */
    private Access access() {
        if (maxRequestMb < 1) {
            throw new ConfigException("--max-request-mb: need at least 1, got " + maxRequestMb);
        }
        String key = apiKey != null ? apiKey : Main.env(spec).get("PETTINGLLMS_API_KEY");
        if (key != null && key.isBlank()) {
            throw new ConfigException("--api-key: the key must not be blank");
        }
        return new Access(key, allowPathLoading, maxRequestMb << 20);
    }
}

package org.pettingllms.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.http.Http;
import org.pettingllms.openai.OpenAiSampler;
import org.pettingllms.openai.Protocol;
import org.pettingllms.openai.ServedWeights;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * Training whose rollouts go to two {@code serve} replicas over loopback: the same samples and metrics as
 * in-process sampling with the same seeds; a replica killed mid-step loses and duplicates nothing; a replica
 * that ignores adapter loads is caught by the probe. Samples are compared before metrics, so a failure says whether
 * the sampling or the learning differs. The trainings that are compared run with one PyTorch thread
 * ({@link Torch#runOnOneThread}): on two, gradients differ in their last bits from run to run and AdamW makes that a
 * visible difference in the next mini-batch's loss.
 */
public class RemoteRolloutTest {
    public static final String MODEL =
            SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();
    /**
     * One request (K = 3 rows) per generation batch, in-process and on every replica. Dynamic batching groups
     * whatever requests arrive together, so a row's logits depend on its batch mates in the last float bits, and at
     * temperature 1 such a bit can flip a sampled token now and then; with one request per batch the same seed gives
     * the same tokens wherever a request runs, which is what these tests compare.
     */
    static final String BATCH_PER_REQUEST = "engine.maxBatchRows=3";

    final List<AutoCloseable> open = new ArrayList<>();
    public final PlanningTask<?, ?> task =
            new PlanningTask<>(new PlanPathGame(PlanPathGame.Options.DEFAULT), List.of("tool", "plan"), 2);
    public final PolicyMap policies = PolicyMap.forLevel(Level.L2, task.roles(), MODEL, Set.of());
    public final ProblemSource problems = new SeededProblems(task.id(), 1);

    public RunConfig config(int steps) {
        return config(steps, 5e-3);
    }

    /**
     * One mini-batch per step: a step's training metrics then come from one forward-backward on the weights that
     * sampled, which two learners reproduce to float noise. A second mini-batch starts after an AdamW step (about
     * lr * sign(g) per weight), where rounding noise in zero gradients has become lr-sized weight differences: with
     * two, the in-process and remote losses differed by up to 4% in clean-clone runs with identical samples.
     */
    public RunConfig config(int steps, double lr, String... more) {
        List<String> overrides = new ArrayList<>(List.of(more));
        overrides.addAll(
                0,
                List.of(
                        "train.steps=" + steps,
                        "rollout.problemsPerStep=3",
                        "rollout.k=3",
                        "rollout.sampling.maxTokens=24",
                        "train.miniBatches=1",
                        "train.learningRate=" + lr,
                        BATCH_PER_REQUEST,
                        "train.checkpointEvery=0",
                        "train.validateEvery=0",
                        "validation.problems=0"));
        return ConfigLoader.fromYaml(
                "task: {name: plan-path}\npolicy: {model: '" + MODEL + "', level: L2}\n", "test", overrides);
    }

    EmbeddedEngine engine() throws Exception {
        EmbeddedEngine e = EmbeddedEngine.open(config(1), policies);
        open.add(e);
        return e;
    }

    InferenceServer replica() throws Exception {
        InferenceServer s =
                new InferenceServer(engine(), MODEL, new InferenceServer.Options("127.0.0.1", 0, "tiny", 64)).start();
        open.add(0, s);
        return s;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed (a killed replica)
            }
        }
    }

    /** Records what a sampler returned for each request, in a canonical order. */
    public static final class Recording implements Sampler {
        final Sampler inner;
        public final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        public Recording(Sampler inner) {
            this.inner = inner;
        }

        @Override
        public List<Completion> sample(PolicyRef policy, Prompt prompt, int n, SamplingParams params) {
            List<Completion> out = inner.sample(policy, prompt, n, params);
            StringBuilder sb = new StringBuilder(policy + "|" + params.seed() + "|" + prompt.text());
            out.forEach(c -> sb.append("|").append(c.tokens()).append("@").append(c.weightVersion()));
            seen.add(sb.toString());
            return out;
        }

        public List<String> sorted() {
            List<String> s = new ArrayList<>(seen);
            Collections.sort(s);
            return s;
        }
    }

    OpenAiSampler remote(EmbeddedEngine learnerEngine, List<URI> servers, Protocol protocol) {
        OpenAiSampler s = new OpenAiSampler(
                new OpenAiSampler.Options(servers, protocol, "tiny", 32, Duration.ofSeconds(30), 8),
                learnerEngine::codec);
        open.add(0, s);
        return s;
    }

    Learner served(EmbeddedEngine learnerEngine, OpenAiSampler sampler, Path dir) {
        int[] probe = learnerEngine.codec(MODEL).encode("plan-path-v1 plan\n#..\nA.G\ntool: RR\n>");
        return new ServedWeights(learnerEngine.learner(), sampler, dir.resolve("published"), probe, 1e-4);
    }

    public static void assertSameMetrics(StepReport a, StepReport b) {
        assertThat(b.step()).isEqualTo(a.step());
        assertThat(b.values().keySet()).containsAll(a.values().keySet());
        a.values().forEach((k, v) -> {
            if (!k.startsWith("time/") && !k.equals(Metric.TOKENS_PER_S)) {
                assertThat(b.get(k)).as(k).isCloseTo(v, within(1e-4));
            }
        });
    }

    @Tag("heavy")
    @Test
    void rolloutsOnTwoServeReplicasEqualInProcessSampling(@TempDir Path dir) throws Exception {
        Torch.runOnOneThread(() -> {
            EmbeddedEngine local = engine();
            Recording inProcess = new Recording(local.sampler());
            Trainer a = new Trainer(config(2), task, problems, policies, inProcess, local.learner(), dir.resolve("a"));
            List<StepReport> expected = List.of(a.step(0), a.step(1));

            EmbeddedEngine learnerEngine = engine();
            InferenceServer r1 = replica();
            InferenceServer r2 = replica();
            for (Protocol protocol : List.of(Protocol.VLLM)) {
                OpenAiSampler sampler = remote(learnerEngine, List.of(r1.uri(), r2.uri()), protocol);
                Recording remote = new Recording(sampler);
                Trainer b = new Trainer(
                        config(2),
                        task,
                        problems,
                        policies,
                        remote,
                        served(learnerEngine, sampler, dir),
                        dir.resolve("b"));
                List<StepReport> got = List.of(b.step(0), b.step(1));
                assertThat(remote.sorted()).as("samples").isEqualTo(inProcess.sorted());
                assertSameMetrics(expected.get(0), got.get(0));
                assertSameMetrics(expected.get(1), got.get(1));
            }
        });
    }

    @Tag("heavy")
    @Test
    void sglangProtocolGivesTheSameSamples(@TempDir Path dir) throws Exception {
        Torch.runOnOneThread(() -> {
            EmbeddedEngine local = engine();
            Recording inProcess = new Recording(local.sampler());
            StepReport expected = new Trainer(
                            config(1), task, problems, policies, inProcess, local.learner(), dir.resolve("a"))
                    .step(0);
            EmbeddedEngine learnerEngine = engine();
            OpenAiSampler sampler = remote(learnerEngine, List.of(replica().uri()), Protocol.SGLANG);
            Recording remote = new Recording(sampler);
            StepReport got = new Trainer(
                            config(1),
                            task,
                            problems,
                            policies,
                            remote,
                            served(learnerEngine, sampler, dir),
                            dir.resolve("b"))
                    .step(0);
            assertThat(remote.sorted()).as("samples").isEqualTo(inProcess.sorted());
            assertSameMetrics(expected, got);
        });
    }

    @Tag("heavy")
    @Test
    void fullWeightTrainingReloadsTheServersFromDisk(@TempDir Path dir) throws Exception {
        Torch.runOnOneThread(() -> {
            // L1: one model, fully fine-tuned; SGLang's /update_weights_from_disk after every update
            PolicyMap l1 = PolicyMap.forLevel(Level.L1, task.roles(), MODEL, Set.of());
            RunConfig cfg = ConfigLoader.fromYaml(
                    "task: {name: plan-path}\npolicy: {model: '" + MODEL + "', level: L1}\n",
                    "test",
                    List.of(
                            "train.steps=2",
                            "rollout.problemsPerStep=3",
                            "rollout.k=3",
                            "rollout.sampling.maxTokens=24",
                            "train.learningRate=1.0e-3",
                            BATCH_PER_REQUEST,
                            "train.checkpointEvery=0",
                            "train.validateEvery=0",
                            "validation.problems=0"));
            EmbeddedEngine local = EmbeddedEngine.open(cfg, l1);
            open.add(local);
            Recording inProcess = new Recording(local.sampler());
            Trainer a = new Trainer(cfg, task, problems, l1, inProcess, local.learner(), dir.resolve("a"));
            List<StepReport> expected = List.of(a.step(0), a.step(1));

            EmbeddedEngine learnerEngine = EmbeddedEngine.open(cfg, l1);
            open.add(learnerEngine);
            OpenAiSampler sampler =
                    remote(learnerEngine, List.of(replica().uri(), replica().uri()), Protocol.SGLANG);
            Recording remote = new Recording(sampler);
            Trainer b =
                    new Trainer(cfg, task, problems, l1, remote, served(learnerEngine, sampler, dir), dir.resolve("b"));
            List<StepReport> got = List.of(b.step(0), b.step(1));
            assertThat(remote.sorted()).as("samples").isEqualTo(inProcess.sorted());
            assertSameMetrics(expected.get(0), got.get(0));
            assertSameMetrics(expected.get(1), got.get(1));

            OpenAiSampler vllm = remote(learnerEngine, List.of(replica().uri()), Protocol.VLLM);
            Trainer c = new Trainer(cfg, task, problems, l1, vllm, served(learnerEngine, vllm, dir), dir.resolve("c"));
            assertThatThrownBy(() -> c.step(0)).hasMessageContaining("use rollout.protocol: sglang");
        });
    }

    @Tag("heavy")
    @Test
    void aReplicaKilledMidStepLosesAndDuplicatesNothing(@TempDir Path dir) throws Exception {
        Torch.runOnOneThread(() -> {
            EmbeddedEngine local = engine();
            Recording inProcess = new Recording(local.sampler());
            StepReport expected = new Trainer(
                            config(1), task, problems, policies, inProcess, local.learner(), dir.resolve("a"))
                    .step(0);

            EmbeddedEngine learnerEngine = engine();
            InferenceServer r1 = replica();
            InferenceServer r2 = replica();
            OpenAiSampler sampler = remote(learnerEngine, List.of(r1.uri(), r2.uri()), Protocol.VLLM);
            Recording remote = new Recording(sampler);
            Learner learner = served(learnerEngine, sampler, dir);
            // adapters published on both replicas first, then r2 dies while the rollouts run
            policies.trainedPolicies().forEach(learner::publish);
            Thread killer = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    return;
                }
                r2.close();
            });
            StepReport got =
                    new Trainer(config(1), task, problems, policies, remote, learner, dir.resolve("b")).step(0);
            killer.join();
            assertThat(remote.sorted())
                    .as("every request answered exactly once, as in-process")
                    .isEqualTo(inProcess.sorted());
            assertSameMetrics(expected, got);
        });
    }

    @Tag("heavy")
    @Test
    void aReplicaThatIgnoresAdapterLoadsIsCaughtByTheProbe(@TempDir Path dir) throws Exception {
        EmbeddedEngine learnerEngine = engine();
        InferenceServer real = replica();
        // a proxy that passes everything on, but loads the first adapter it was given under every later name
        HttpServer proxy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        HttpClient http = HttpClient.newHttpClient();
        Map<String, String> firstPath = new ConcurrentHashMap<>();
        proxy.createContext("/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes());
            if (ex.getRequestURI().getPath().endsWith("load_lora_adapter")
                    && !ex.getRequestURI().getPath().contains("unload")) {
                var node = (ObjectNode) Http.JSON.readTree(body);
                String adapter = node.path("lora_name").asText().replaceFirst("-v\\d+$", "");
                String first = firstPath.computeIfAbsent(
                        adapter, k -> node.path("lora_path").asText());
                node.put("lora_path", first);
                body = node.toString();
            }
            try {
                HttpResponse<byte[]> r = http.send(
                        HttpRequest.newBuilder(real.uri().resolve(ex.getRequestURI()))
                                .header("Content-Type", "application/json")
                                .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                ex.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
                ex.getResponseBody().write(r.body());
            } catch (InterruptedException e) {
                ex.sendResponseHeaders(500, -1);
            }
            ex.close();
        });
        proxy.start();
        open.add(0, () -> proxy.stop(0));
        OpenAiSampler sampler = remote(
                learnerEngine,
                List.of(URI.create("http://127.0.0.1:" + proxy.getAddress().getPort())),
                Protocol.VLLM);
        Trainer t = new Trainer(
                config(2), task, problems, policies, sampler, served(learnerEngine, sampler, dir), dir.resolve("b"));
        t.step(0); // version 0 everywhere: the stale copy is the right one
        // make sure the planner's weights move (a step whose groups all tie leaves a LoRA adapter's output as is)
        PolicyRef plan = policies.policyOf("plan");
        List<Completion> cs = learnerEngine
                .sampler()
                .sample(
                        plan,
                        Prompt.compact("plan-path-v1 plan\n#..\nA.G\n>"),
                        4,
                        new SamplingParams(1.0, 0, 1.0, 8, List.of(), 5));
        List<TrainExample> batch = new ArrayList<>();
        for (int i = 0; i < cs.size(); i++) {
            batch.add(new TrainExample(
                    cs.get(i).promptTokens(), cs.get(i).tokens(), cs.get(i).logprobs(), i % 2 == 0 ? 1 : -1));
        }
        learnerEngine.learner().forwardBackward(plan, batch, LossConfig.DEFAULT);
        learnerEngine.learner().optimStep(plan, OptimParams.adamW(0.05, 0, 1));
        assertThatThrownBy(() -> t.step(1))
                .hasMessageContaining("does not serve the weights of")
                .hasMessageContaining("127.0.0.1:" + proxy.getAddress().getPort())
                .hasMessageContaining("stale or wrong weights");
    }
}

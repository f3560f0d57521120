package org.pettingllms.cli;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.rollout.RolloutEngine;
import org.pettingllms.core.rollout.RolloutResult;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.openai.OpenAiSampler;
import org.pettingllms.openai.Protocol;
import org.pettingllms.openai.ServedWeights;
import org.pettingllms.serve.InferenceServer;
import org.pettingllms.tinker.TinkerClient;
import org.pettingllms.tinker.TinkerLearner;
import org.pettingllms.tinker.server.TinkerServer;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * {@code bench remote}: the same tree rollouts (Plan-Path, per-role adapters) sampled in-process and through
 * {@code serve} replicas over loopback with the remote sampler, and the time to publish an adapter version to
 * every replica (write, load, probe). The replicas run in this process: the numbers are the protocol's and the
 * client's overhead, not a network's. Then the learner: the same mini-batches (one round of rollouts per policy)
 * trained in-process and through the Tinker API ({@code serve --tinker} on loopback): trained tokens per second.
 */
final class RemoteBench {
    private RemoteBench() {}

    /**
     * @param setup the run whose task, model and policies are measured (its rollout.k and rollout.problemsPerStep
     *              as given); the replicas serve its model
     */
    static Map<String, Object> run(RunSetup setup, int replicas, int rounds, int warmup) throws Exception {
        RunConfig cfg = setup.config();
        Task<?> task = setup.task();
        PolicyMap policies = setup.policies();
        String name = cfg.policy().model();
        int k = cfg.rollout().k();
        int problems = cfg.rollout().problemsPerStep();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("benchmark", "remote");
        json.put("model", name);
        json.put("task", task.id());
        json.put("k", k);
        json.put("concurrent_problems", problems);
        json.put("replicas", replicas);
        Path published = Files.createTempDirectory("pettingllms-bench-remote");
        List<Path> states = new ArrayList<>(List.of(published));
        List<AutoCloseable> open = new ArrayList<>();
        try {
            EmbeddedEngine local = EmbeddedEngine.open(cfg, policies);
            open.add(local);
            List<URI> uris = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                EmbeddedEngine e = EmbeddedEngine.open(cfg, policies);
                open.add(e);
                InferenceServer s =
                        new InferenceServer(e, name, new InferenceServer.Options("127.0.0.1", 0, "bench", 256)).start();
                open.add(0, s);
                uris.add(s.uri());
            }
            OpenAiSampler remote = new OpenAiSampler(
                    new OpenAiSampler.Options(uris, Protocol.VLLM, "bench", 256, Duration.ofSeconds(120), 4),
                    local::codec);
            open.add(0, remote);
            ServedWeights served = new ServedWeights(
                    local.learner(), remote, published, local.codec(name).encodePrompt(setup.firstPrompt()), 1e-4);
            List<Double> publishMs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                for (PolicyRef p : policies.trainedPolicies()) {
                    // a new version each time: an optimizer step at learning rate 0 changes no weights
                    local.learner().optimStep(p, OptimParams.adamW(0, 0, 1));
                    long t0 = System.nanoTime();
                    served.publish(p);
                    publishMs.add((System.nanoTime() - t0) / 1e6);
                }
            }
            json.put(
                    "adapter_publish_ms_median",
                    Math.round(publishMs.stream().sorted().toList().get(publishMs.size() / 2)));
            Throughput inProcess = throughput(local.sampler(), task, cfg, policies, rounds, warmup);
            Throughput overHttp = throughput(remote, task, cfg, policies, rounds, warmup);
            json.put("in_process_tokens_per_s", Math.round(inProcess.tokensPerSecond()));
            json.put("remote_tokens_per_s", Math.round(overHttp.tokensPerSecond()));
            json.put("in_process_env_steps_per_s", Math.round(inProcess.envStepsPerSecond() * 10) / 10.0);
            json.put("remote_env_steps_per_s", Math.round(overHttp.envStepsPerSecond() * 10) / 10.0);
            json.put(
                    "remote_over_in_process",
                    Math.round(1000 * overHttp.tokensPerSecond() / inProcess.tokensPerSecond()) / 1000.0);

            // the learner: the same mini-batches trained in-process and through the Tinker API on loopback
            EmbeddedEngine tinkerEngine = EmbeddedEngine.open(cfg, policies);
            open.add(tinkerEngine);
            Path state = Files.createTempDirectory("pettingllms-bench-tinker");
            states.add(state);
            TinkerServer server = new TinkerServer(
                            tinkerEngine,
                            name,
                            new TinkerServer.Options(
                                    "127.0.0.1",
                                    0,
                                    "bench",
                                    state,
                                    cfg.engine().loraRank(),
                                    cfg.run().seed()))
                    .start();
            open.add(0, server);
            TinkerLearner tinker = new TinkerLearner(
                    new TinkerClient(new TinkerClient.Settings(server.uri(), "local", Duration.ofMinutes(10))),
                    new TinkerLearner.Settings(
                            "bench", cfg.engine().loraRank(), cfg.run().seed()));
            open.add(0, tinker);
            Map<PolicyRef, List<TrainExample>> batches = batches(local.sampler(), task, cfg, policies);
            double inProcessTrain = trainingTokensPerSecond(local.learner(), batches, rounds, warmup);
            double tinkerTrain = trainingTokensPerSecond(tinker, batches, rounds, warmup);
            json.put("in_process_train_tokens_per_s", Math.round(inProcessTrain));
            json.put("tinker_train_tokens_per_s", Math.round(tinkerTrain));
            json.put("tinker_over_in_process", Math.round(1000 * tinkerTrain / inProcessTrain) / 1000.0);
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
            for (Path dir : states) {
                AtomicFiles.deleteTree(dir);
            }
        }
        json.put("cores", Runtime.getRuntime().availableProcessors());
        return json;
    }

    /** One round of rollouts' samples per policy, with advantages +1 and -1 in turn (what an update trains on). */
    private static Map<PolicyRef, List<TrainExample>> batches(
            Sampler sampler, Task<?> task, RunConfig cfg, PolicyMap policies) {
        var problems = task.problems(1).problems(Split.TRAIN, 0, cfg.rollout().problemsPerStep());
        RolloutResult r = new RolloutEngine(sampler)
                .run(
                        task,
                        problems,
                        policies,
                        cfg.rollout().toRolloutConfig(cfg.task().style(), 0));
        Map<PolicyRef, List<TrainExample>> out = new LinkedHashMap<>();
        int i = 0;
        for (var s : r.samples()) {
            if (s.completionTokens().size() > 0) {
                out.computeIfAbsent(s.policy(), p -> new ArrayList<>())
                        .add(new TrainExample(
                                s.promptTokens(), s.completionTokens(), s.samplingLogprobs(), i++ % 2 == 0 ? 1 : -1));
            }
        }
        return out;
    }

    /** Trained completion tokens per second: each round a forward-backward and an optimizer step per policy. */
    private static double trainingTokensPerSecond(
            Learner learner, Map<PolicyRef, List<TrainExample>> batches, int rounds, int warmup) {
        long tokens = 0;
        double seconds = 0;
        for (int round = 0; round < warmup + rounds; round++) {
            long t0 = System.nanoTime();
            long n = 0;
            for (Map.Entry<PolicyRef, List<TrainExample>> b : batches.entrySet()) {
                n += learner.forwardBackward(b.getKey(), b.getValue(), LossConfig.DEFAULT)
                        .tokens();
                learner.optimStep(b.getKey(), OptimParams.adamW(1e-5, 0, 1));
                learner.publish(b.getKey());
            }
            if (round >= warmup) {
                seconds += (System.nanoTime() - t0) / 1e9;
                tokens += n;
            }
        }
        return tokens / seconds;
    }

    /** Completion tokens and environment steps per second over the measured rounds. */
    private record Throughput(double tokensPerSecond, double envStepsPerSecond) {}

    /** Completion tokens and environment steps per second over the measured rounds. */
    private static Throughput throughput(
            Sampler sampler, Task<?> task, RunConfig cfg, PolicyMap policies, int rounds, int warmup) {
        RolloutEngine engine = new RolloutEngine(sampler);
        long tokens = 0;
        long steps = 0;
        double seconds = 0;
        for (int round = 0; round < warmup + rounds; round++) {
            var problems = task.problems(1)
                    .problems(
                            Split.TRAIN,
                            (long) round * cfg.rollout().problemsPerStep(),
                            cfg.rollout().problemsPerStep());
            long t0 = System.nanoTime();
            RolloutResult r = engine.run(
                    task,
                    problems,
                    policies,
                    cfg.rollout().toRolloutConfig(cfg.task().style(), round));
            double s = (System.nanoTime() - t0) / 1e9;
            if (round >= warmup) {
                seconds += s;
                steps += r.envSteps();
                tokens += r.samples().stream()
                        .mapToLong(x -> x.completionTokens().size())
                        .sum();
            }
        }
        return new Throughput(tokens / seconds, steps / seconds);
    }
}

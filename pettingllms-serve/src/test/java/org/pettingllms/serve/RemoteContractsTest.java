package org.pettingllms.serve;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.openai.OpenAiSampler;
import org.pettingllms.openai.Protocol;
import org.pettingllms.openai.ServedWeights;
import org.pettingllms.testkit.SamplerContract;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/** The remote sampler over a {@code serve} replica keeps the sampler contract, with either protocol. */
class RemoteContractsTest {
    static final String MODEL =
            SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();

    abstract static class Remote extends SamplerContract {
        final List<AutoCloseable> open = new ArrayList<>();
        final OpenAiSampler sampler;
        final Learner learner;
        final PolicyRef policy = new PolicyRef(MODEL, "plan");

        Remote(Protocol protocol) throws Exception {
            var cfg = ConfigLoader.fromYaml(
                    "task: {name: plan-path}\npolicy: {model: '" + MODEL + "', level: L2}\n", "test", List.of());
            PolicyMap policies = PolicyMap.forLevel(Level.L2, List.of("tool", "plan"), MODEL, Set.of());
            EmbeddedEngine learnerEngine = EmbeddedEngine.open(cfg, policies);
            EmbeddedEngine servingEngine = EmbeddedEngine.open(cfg, policies);
            InferenceServer server = new InferenceServer(
                            servingEngine, MODEL, new InferenceServer.Options("127.0.0.1", 0, "tiny", 64))
                    .start();
            sampler = new OpenAiSampler(
                    new OpenAiSampler.Options(List.of(server.uri()), protocol, "tiny", 16, Duration.ofSeconds(30), 4),
                    learnerEngine::codec);
            Path published = Files.createTempDirectory("pettingllms-contract");
            learner = new ServedWeights(
                    learnerEngine.learner(),
                    sampler,
                    published,
                    learnerEngine.codec(MODEL).encode("plan-path-v1 plan\n#..\n>"),
                    1e-4);
            learner.publish(policy); // the adapter's version 0 on the server
            open.addAll(List.of(sampler, server, servingEngine, learnerEngine, () -> {
                try (var files = Files.walk(published)) {
                    files.sorted(Comparator.reverseOrder())
                            .forEach(p -> p.toFile().delete());
                }
            }));
        }

        @AfterEach
        void close() throws Exception {
            for (AutoCloseable c : open) {
                c.close();
            }
        }

        @Override
        protected Sampler sampler() {
            return sampler;
        }

        @Override
        protected PolicyRef policy() {
            return policy;
        }

        @Override
        protected Prompt prompt() {
            return Prompt.compact("plan-path-v1 plan\n#..A\n..G.\ntool: DR\n>");
        }

        @Override
        protected Learner learner() {
            return learner;
        }
    }

    @Nested
    class VllmProtocol extends Remote {
        VllmProtocol() throws Exception {
            super(Protocol.VLLM);
        }
    }

    @Nested
    class SglangProtocol extends Remote {
        SglangProtocol() throws Exception {
            super(Protocol.SGLANG);
        }
    }
}

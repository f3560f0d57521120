package org.pettingllms.tinker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.serve.RemoteRolloutTest;
import org.pettingllms.testkit.LearnerContract;
import org.pettingllms.tinker.TinkerClient;
import org.pettingllms.tinker.TinkerException;
import org.pettingllms.tinker.TinkerLearner;
import org.pettingllms.tinker.TinkerSampler;
import org.pettingllms.torch.Torch;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The Tinker learner against {@code serve --tinker} over loopback: the learner contract, training that equals
 * in-process training (samples first, then every metric), a restarted server that resumes from the state an earlier
 * one saved, and refusals that name what was wrong.
 */
class TinkerLearnerTest {
    static final String MODEL = RemoteRolloutTest.MODEL;

    /** A server on a fresh engine of {@code cfg}, with its state under {@code dir}. */
    static TinkerServer server(EmbeddedEngine engine, RunConfig cfg, Path dir) {
        return new TinkerServer(
                        engine,
                        MODEL,
                        new TinkerServer.Options(
                                "127.0.0.1",
                                0,
                                "tiny",
                                dir,
                                cfg.engine().loraRank(),
                                cfg.run().seed()))
                .start();
    }

    static TinkerLearner learner(TinkerServer server, RunConfig cfg) {
        TinkerClient client =
                new TinkerClient(new TinkerClient.Settings(server.uri(), "local", Duration.ofSeconds(120)));
        return new TinkerLearner(
                client,
                new TinkerLearner.Settings(
                        "tiny", cfg.engine().loraRank(), cfg.run().seed()));
    }

    @Nested
    class Contract extends LearnerContract {
        final List<AutoCloseable> open = new ArrayList<>();
        final java.util.Map<Learner, EmbeddedEngine> engines = new java.util.IdentityHashMap<>();
        final RunConfig cfg = new RemoteRolloutTest().config(1);

        @AfterEach
        void close() throws Exception {
            for (int i = open.size() - 1; i >= 0; i--) {
                open.get(i).close();
            }
        }

        /** A fresh server and a learner over it. */
        @Override
        protected Learner learner() {
            try {
                EmbeddedEngine engine = EmbeddedEngine.open(
                        cfg, PolicyMap.forLevel(Level.L2, List.of("tool", "plan"), MODEL, Set.of()));
                open.add(engine);
                // a fresh engine (untrained adapters) over one state folder: a restored learner is another client
                // of the same service, which keeps what the first saved
                TinkerServer server = server(engine, cfg, dir.resolve("service-state"));
                open.add(server);
                TinkerLearner learner = TinkerLearnerTest.learner(server, cfg);
                open.add(learner);
                engines.put(learner, engine);
                return learner;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        protected PolicyRef policy() {
            return new PolicyRef(MODEL, "plan");
        }

        /** Completions of the untrained adapter, sampled by the server's engine. */
        @Override
        protected List<TrainExample> samples(Learner learner, double... advantages) {
            EmbeddedEngine engine = engines.get(learner);
            int[] prompt = engine.codec(MODEL).encodePrompt(Prompt.compact("plan-path-v1 plan\n#.A\n..G\ntool: D\n>"));
            List<Completion> out = engine.sampler()
                    .sampleTokens(
                            policy(), prompt, advantages.length, new SamplingParams(1.0, 0, 1.0, 12, List.of(), 7));
            List<TrainExample> batch = new ArrayList<>();
            for (int i = 0; i < advantages.length; i++) {
                Completion c = out.get(i);
                batch.add(new TrainExample(c.promptTokens(), c.tokens(), c.logprobs(), advantages[i]));
            }
            return batch;
        }
    }

    final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // a server closed by the test
            }
        }
    }

    EmbeddedEngine engine(RunConfig cfg, PolicyMap policies) throws Exception {
        EmbeddedEngine e = EmbeddedEngine.open(cfg, policies);
        open.add(e);
        return e;
    }

    /**
     * L2 (an adapter per role; validation after each step's update: a sampler of published weights must see that
     * update, published first).
     */
    @Tag("heavy")
    @Test
    void trainingThroughTheTinkerApiEqualsInProcessTraining(@TempDir Path dir) throws Exception {
        RemoteRolloutTest r = new RemoteRolloutTest();
        assertSameTraining(r, r.policies, dir);
    }

    /**
     * L1 as a Tinker service trains it: the API trains LoRA only, so the roles share one training client, which is
     * in-process training of one adapter shared by the roles (the in-process L1 trains the full weights instead).
     */
    @Tag("heavy")
    @Test
    void oneSharedTrainingClientEqualsOneSharedAdapterInProcess(@TempDir Path dir) throws Exception {
        RemoteRolloutTest r = new RemoteRolloutTest();
        PolicyRef shared = new PolicyRef(MODEL, "shared");
        assertSameTraining(r, new PolicyMap(java.util.Map.of("tool", shared, "plan", shared), Set.of()), dir);
    }

    void assertSameTraining(RemoteRolloutTest r, PolicyMap policies, Path dir) throws Exception {
        RunConfig cfg = r.config(2, 5e-3, "train.validateEvery=1", "validation.problems=3");
        Torch.runOnOneThread(() -> {
            EmbeddedEngine local = engine(cfg, policies);
            RemoteRolloutTest.Recording inProcess = new RemoteRolloutTest.Recording(local.sampler());
            Trainer a = new Trainer(cfg, r.task, r.problems, policies, inProcess, local.learner(), dir.resolve("a"));
            List<StepReport> expected = List.of(a.step(0), a.step(1));

            EmbeddedEngine remoteEngine = engine(cfg, policies);
            TinkerServer server = server(remoteEngine, cfg, dir.resolve("server"));
            open.add(0, server);
            TinkerLearner learner = learner(server, cfg);
            open.add(0, learner);
            RemoteRolloutTest.Recording remote = new RemoteRolloutTest.Recording(
                    new TinkerSampler(learnerClient(learner), learner, p -> remoteEngine.codec(MODEL)));
            Trainer b = new Trainer(cfg, r.task, r.problems, policies, remote, learner, dir.resolve("b"));
            List<StepReport> got = List.of(b.step(0), b.step(1));
            assertThat(remote.sorted()).as("samples").isEqualTo(inProcess.sorted());
            RemoteRolloutTest.assertSameMetrics(expected.get(0), got.get(0));
            RemoteRolloutTest.assertSameMetrics(expected.get(1), got.get(1));
        });
    }

    /** The learner's client, shared with its sampler (one session). */
    static TinkerClient learnerClient(TinkerLearner learner) {
        return learner.client();
    }

    @Tag("heavy")
    @Test
    void aRestartedServerResumesFromTheStateAnEarlierOneSaved(@TempDir Path dir) throws Exception {
        RemoteRolloutTest r = new RemoteRolloutTest();
        RunConfig cfg = r.config(3);
        Torch.runOnOneThread(() -> {
            // the whole run on one server
            EmbeddedEngine e1 = engine(cfg, r.policies);
            TinkerServer s1 = server(e1, cfg, dir.resolve("state1"));
            open.add(0, s1);
            TinkerLearner l1 = learner(s1, cfg);
            open.add(0, l1);
            RemoteRolloutTest.Recording whole =
                    new RemoteRolloutTest.Recording(new TinkerSampler(l1.client(), l1, p -> e1.codec(MODEL)));
            Trainer a = new Trainer(cfg, r.task, r.problems, r.policies, whole, l1, dir.resolve("a"));
            a.step(0);
            a.step(1);
            int beforeThird = whole.seen.size();
            StepReport expectedThird = a.step(2);
            List<String> wholeThird = new ArrayList<>(whole.seen.subList(beforeThird, whole.seen.size()));
            java.util.Collections.sort(wholeThird);

            // steps 0-1, a checkpoint, the server killed; a new server process (engine) on the same folder
            EmbeddedEngine e2 = engine(cfg, r.policies);
            TinkerServer s2 = server(e2, cfg, dir.resolve("state2"));
            open.add(0, s2);
            TinkerLearner l2 = learner(s2, cfg);
            open.add(0, l2);
            Trainer b = new Trainer(
                    cfg,
                    r.task,
                    r.problems,
                    r.policies,
                    new TinkerSampler(l2.client(), l2, p -> e2.codec(MODEL)),
                    l2,
                    dir.resolve("b"));
            b.step(0);
            b.step(1);
            for (String role : r.task.roles()) {
                l2.save(r.policies.policyOf(role), dir.resolve("ckpt").resolve(role));
            }
            s2.close();
            e2.close();
            EmbeddedEngine e3 = engine(cfg, r.policies);
            TinkerServer s3 = server(e3, cfg, dir.resolve("state2"));
            open.add(0, s3);
            TinkerLearner l3 = learner(s3, cfg);
            open.add(0, l3);
            for (String role : r.task.roles()) {
                l3.load(r.policies.policyOf(role), dir.resolve("ckpt").resolve(role));
            }
            RemoteRolloutTest.Recording resumed =
                    new RemoteRolloutTest.Recording(new TinkerSampler(l3.client(), l3, p -> e3.codec(MODEL)));
            Trainer c = new Trainer(cfg, r.task, r.problems, r.policies, resumed, l3, dir.resolve("c"));
            StepReport third = c.step(2);
            assertThat(wholeThird).isNotEmpty();
            assertThat(resumed.sorted())
                    .as("step 2's samples, from the restored weights and version")
                    .isEqualTo(wholeThird);
            RemoteRolloutTest.assertSameMetrics(expectedThird, third);
        });
    }

    @Tag("heavy")
    @Test
    void refusalsNameWhatWasWrong(@TempDir Path dir) throws Exception {
        RemoteRolloutTest r = new RemoteRolloutTest();
        RunConfig cfg = r.config(1);
        EmbeddedEngine e = engine(cfg, r.policies);
        TinkerServer s = server(e, cfg, dir);
        open.add(0, s);
        TinkerClient client = new TinkerClient(new TinkerClient.Settings(s.uri(), "local", Duration.ofSeconds(30)));
        open.add(0, client);
        TinkerLearner wrongModel = new TinkerLearner(
                client, new TinkerLearner.Settings("Qwen/Qwen3-8B", cfg.engine().loraRank(), 1));
        assertThatThrownBy(() -> wrongModel.publish(new PolicyRef(MODEL, "plan")))
                .isInstanceOf(TinkerException.class)
                .hasMessageContaining("create_model refused (400)")
                .hasMessageContaining("this server trains 'tiny', not 'Qwen/Qwen3-8B'");
        TinkerLearner wrongRank = new TinkerLearner(client, new TinkerLearner.Settings("tiny", 99, 1));
        assertThatThrownBy(() -> wrongRank.publish(new PolicyRef(MODEL, "plan")))
                .hasMessageContaining("LoRA rank " + cfg.engine().loraRank() + ", got 99");
        TinkerLearner wrongSeed = new TinkerLearner(
                client, new TinkerLearner.Settings("tiny", cfg.engine().loraRank(), 99));
        assertThatThrownBy(() -> wrongSeed.publish(new PolicyRef(MODEL, "plan")))
                .hasMessageContaining(
                        "initialises adapters with seed " + cfg.run().seed() + " (serve --seed), got 99");
        TinkerLearner ok = learner(s, cfg);
        open.add(0, ok);
        assertThatThrownBy(() -> ok.forwardBackward(
                        new PolicyRef(MODEL, "plan"),
                        List.of(),
                        new LossConfig(0.2, 0.2, LossConfig.Aggregation.TOKEN_MEAN, 0.1, 0)))
                .hasMessageContaining("no KL or entropy term");
        TinkerClient nowhere = new TinkerClient(
                new TinkerClient.Settings(java.net.URI.create("http://127.0.0.1:9"), "local", Duration.ofSeconds(2)));
        open.add(0, nowhere);
        assertThatThrownBy(() -> new TinkerLearner(nowhere, new TinkerLearner.Settings("tiny", 8, 1))
                        .publish(new PolicyRef(MODEL, "plan")))
                .isInstanceOf(TinkerException.class)
                .hasMessageContaining("create_session: gave up after");
    }
}

package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.LossConfig;
import org.pettingllms.core.backend.OptimParams;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.FloatSeq;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;

/**
 * Asynchronous training with a scripted sampler and a recording learner: which weights each step samples, the
 * correction reaching the learner, repeatability, resume, failures, and when optimizer steps may overlap rollouts.
 */
class AsyncTrainingTest {
    final CounterTask task = new CounterTask(List.of("a", "b"), 3);
    final PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "m", Set.of());
    final PolicyRef a = new PolicyRef("m", "a");
    final ProblemSource source = (split, from, count) -> {
        List<Problem> out = new ArrayList<>();
        for (long i = from; i < from + count; i++) {
            out.add(Problem.generated(split + "-" + i, 6 + i % 5));
        }
        return out;
    };

    RunConfig config(int steps, String... more) {
        List<String> o = new ArrayList<>(List.of(
                "train.steps=" + steps,
                "rollout.problemsPerStep=4",
                "rollout.k=3",
                "train.checkpointEvery=0",
                "train.validateEvery=0",
                "validation.problems=2"));
        o.addAll(List.of(more));
        return ConfigLoader.fromYaml("task: {name: counter}\npolicy: {model: m, level: L2}\n", "test", o);
    }

    /**
     * A recording learner whose proximal logprobs are the sampled ones plus {@code shift}, that records what was
     * published and whether an optimizer step ran while the sampler was sampling, and that may publish copies.
     */
    static final class Probe implements Learner {
        final RecordingLearner inner = new RecordingLearner();
        final double shift;
        final boolean copies;
        final List<Long> publishedA = Collections.synchronizedList(new ArrayList<>());
        final Map<PolicyRef, Long> lastPublished = new ConcurrentHashMap<>();
        final AtomicInteger sampling = new AtomicInteger();
        final AtomicInteger stepsWhileSampling = new AtomicInteger();
        volatile long killAtVersion = -1;
        volatile long forwardMillis;

        Probe(double shift, boolean copies) {
            this.shift = shift;
            this.copies = copies;
        }

        @Override
        public LossStats forwardBackward(PolicyRef policy, List<TrainExample> batch, LossConfig loss) {
            sleep(forwardMillis);
            return inner.forwardBackward(policy, batch, loss);
        }

        @Override
        public List<FloatSeq> logprobs(PolicyRef policy, List<TrainExample> batch) {
            List<FloatSeq> out = new ArrayList<>();
            for (TrainExample e : batch) {
                float[] lp = e.oldLogprobs().toArray();
                for (int t = 0; t < lp.length; t++) {
                    lp[t] += (float) shift;
                }
                out.add(FloatSeq.of(lp));
            }
            return out;
        }

        @Override
        public OptimStats optimStep(PolicyRef policy, OptimParams params) {
            if (sampling.get() > 0) {
                stepsWhileSampling.incrementAndGet();
            }
            return inner.optimStep(policy, params);
        }

        @Override
        public long publish(PolicyRef policy) {
            long v = inner.publish(policy);
            if (v == killAtVersion) {
                throw new IllegalStateException("killed at version " + v);
            }
            if (policy.equals(new PolicyRef("m", "a"))) {
                publishedA.add(v);
            }
            lastPublished.put(policy, v);
            return v;
        }

        @Override
        public boolean publishesCopies() {
            return copies;
        }

        @Override
        public void save(PolicyRef policy, Path dir) throws IOException {
            inner.save(policy, dir);
        }

        @Override
        public void load(PolicyRef policy, Path dir) throws IOException {
            inner.load(policy, dir);
        }

        /**
         * A sampler that stamps the version the sampler would hold: the last published one when publishing copies,
         * else the live one (a sample drawn across an optimizer step then carries a version nobody published).
         */
        Sampler sampler(long sampleMillis) {
            ScriptedSampler script = ScriptedSampler.of(
                    (p, prompt, rng) -> Integer.toString(rng.nextInt(4)),
                    p -> copies ? lastPublished.getOrDefault(p, 0L) : inner.version(p));
            return (policy, prompt, n, params) -> {
                sampling.incrementAndGet();
                try {
                    sleep(sampleMillis);
                    return script.sample(policy, prompt, n, params);
                } finally {
                    sampling.decrementAndGet();
                }
            };
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    List<StepReport> train(RunConfig cfg, Probe learner, Path dir, long sampleMillis, boolean resume)
            throws IOException {
        new Trainer(cfg, task, source, l2, learner.sampler(sampleMillis), learner, dir).run(resume);
        return MetricsLog.read(dir.resolve("metrics.jsonl"));
    }

    static List<Map<String, Double>> withoutTimes(List<StepReport> reports) {
        return reports.stream()
                .map(r -> {
                    Map<String, Double> m = TrainerTest.withoutTimes(r);
                    m.keySet().removeIf(k -> k.startsWith("async/wait_"));
                    return m;
                })
                .toList();
    }

    static List<Double> metric(List<StepReport> reports, String name) {
        return reports.stream().map(r -> r.values().get(name)).toList();
    }

    @Test
    void maxStalenessZeroIsTheSynchronousRun(@TempDir Path dir) throws Exception {
        Probe sync = new Probe(0, false);
        List<StepReport> s = train(config(4, "train.validateEvery=2"), sync, dir.resolve("sync"), 0, false);
        Probe async = new Probe(0, false);
        List<StepReport> as = train(
                config(4, "train.validateEvery=2", "train.async.enabled=true", "train.async.maxStaleness=0"),
                async,
                dir.resolve("async"),
                0,
                false);
        List<Map<String, Double>> asyncValues = withoutTimes(as);
        asyncValues.forEach(m -> m.keySet().removeIf(k -> k.startsWith("async/")));
        assertThat(asyncValues).isEqualTo(withoutTimes(s));
        assertThat(metric(as, Metric.ASYNC_STALENESS)).containsOnly(0.0);
        assertThat(async.inner.batches()).isEqualTo(sync.inner.batches());
        assertThat(s.get(0).values()).doesNotContainKey(Metric.ASYNC_STALENESS);
    }

    @Test
    void eachStepSamplesTheWeightsItsStepNumberNamesAndValidationSeesTheLatest(@TempDir Path dir) throws Exception {
        // eta 2, validation after steps 2 and 5: steps sample the weights of steps 0 0 0 3 3 3
        Probe learner = new Probe(0, false);
        List<StepReport> r = train(
                config(6, "train.validateEvery=3", "train.async.enabled=true", "train.async.maxStaleness=2"),
                learner,
                dir,
                1,
                false);
        assertThat(metric(r, Metric.ASYNC_STALENESS)).containsExactly(0.0, 1.0, 2.0, 0.0, 1.0, 2.0);
        // one optimizer step per step: the weights of step b are version b; validation publishes after steps 2 and 5
        assertThat(learner.publishedA).containsExactly(0L, 0L, 0L, 3L, 3L, 3L, 3L, 6L);
        assertThat(learner.inner.optimSteps(a)).isEqualTo(6);
        assertThat(r.get(2).values()).containsKey(Metric.VAL + Metric.SUCCESS);
        assertThat(r.get(1).values())
                .containsKeys(Metric.ASYNC_WAIT_ROLLOUT, Metric.ASYNC_WAIT_WEIGHTS, Metric.ASYNC_WAIT_HOLD);
    }

    @Test
    void decoupledPpoReachesTheLearnerOnStaleStepsOnly(@TempDir Path dir) throws Exception {
        // the proximal policy puts 0.1 less logprob on every sampled token: w = exp(-0.1)
        Probe learner = new Probe(-0.1, false);
        List<StepReport> r =
                train(config(3, "train.async.enabled=true", "train.async.maxStaleness=1"), learner, dir, 0, false);
        List<RecordingLearner.Batch> batches = learner.inner.batches();
        assertThat(batches).hasSize(6); // two policies a step
        for (int i = 0; i < batches.size(); i++) {
            for (TrainExample e : batches.get(i).examples()) {
                if (i < 2) { // step 0: fresh samples, as sampled
                    assertThat(e.uniform()).isTrue();
                    assertThat(e.oldLogprobs().sum()).isZero();
                } else {
                    assertThat(e.tokenWeights().size())
                            .isEqualTo(e.completionTokens().size());
                    for (int t = 0; t < e.tokenWeights().size(); t++) {
                        assertThat((double) e.tokenWeights().get(t)).isCloseTo(Math.exp(-0.1), within(1e-6));
                        assertThat((double) e.oldLogprobs().get(t)).isCloseTo(-0.1, within(1e-6));
                    }
                }
            }
        }
        assertThat(metric(r, Metric.ASYNC_WEIGHT).get(0)).isEqualTo(1.0);
        assertThat(metric(r, Metric.ASYNC_WEIGHT).get(2)).isCloseTo(Math.exp(-0.1), within(1e-6));
        assertThat(metric(r, Metric.ASYNC_DROPPED)).containsOnly(0.0);
        assertThat(metric(r, Metric.ASYNC_LAG).get(0)).isZero();
        assertThat(metric(r, Metric.ASYNC_LAG).get(2)).isCloseTo(0.1, within(1e-6));
        // a cap below exp(0.5): every stale token dropped
        Probe capped = new Probe(0.5, false);
        List<StepReport> c = train(
                config(2, "train.async.enabled=true", "train.async.weightCap=1.5"),
                capped,
                dir.resolve("capped"),
                0,
                false);
        assertThat(metric(c, Metric.ASYNC_DROPPED)).containsExactly(0.0, 1.0);
    }

    @Test
    void anAsyncRunRepeatsAndAKilledOneResumesAsTheSameRun(@TempDir Path dir) throws Exception {
        RunConfig cfg = config(6, "train.checkpointEvery=2", "train.async.enabled=true", "train.async.maxStaleness=1");
        List<StepReport> full = train(cfg, new Probe(-0.1, false), dir.resolve("full"), 1, false);
        List<StepReport> again = train(cfg, new Probe(-0.1, false), dir.resolve("again"), 0, false);
        assertThat(withoutTimes(again)).isEqualTo(withoutTimes(full));
        assertThat(metric(full, Metric.ASYNC_STALENESS)).containsExactly(0.0, 1.0, 0.0, 1.0, 0.0, 1.0);
        // the rollouts of step 4 (the weights of step 4: version 4) fail, after the checkpoint of step 3
        Probe killed = new Probe(-0.1, false);
        killed.killAtVersion = 4;
        assertThatThrownBy(() -> train(cfg, killed, dir.resolve("resumed"), 0, false))
                .hasMessage("killed at version 4");
        List<StepReport> resumed = train(cfg, new Probe(-0.1, false), dir.resolve("resumed"), 0, true);
        assertThat(withoutTimes(resumed)).isEqualTo(withoutTimes(full));
    }

    @Test
    void optimizerStepsOverlapRolloutsOnlyWhenThePublishedWeightsAreACopy(@TempDir Path dir) throws Exception {
        String[] async = {"train.async.enabled=true", "train.async.maxStaleness=1"};
        Probe live = new Probe(0, false);
        live.forwardMillis = 5;
        train(config(5, async), live, dir.resolve("live"), 15, false);
        assertThat(live.stepsWhileSampling.get())
                .as("the sampler reads the live weights: no optimizer step while it samples")
                .isZero();
        Probe copies = new Probe(0, true);
        copies.forwardMillis = 5;
        List<StepReport> r = train(config(5, async), copies, dir.resolve("copies"), 15, false);
        assertThat(copies.stepsWhileSampling.get())
                .as("with copies the update of step j runs beside the rollouts of step j + 1")
                .isPositive();
        assertThat(metric(r, Metric.ASYNC_STALENESS)).containsExactly(0.0, 1.0, 1.0, 1.0, 1.0);
        assertThat(Stream.of(live, copies).map(p -> p.inner.optimSteps(new PolicyRef("m", "b"))))
                .containsOnly(5L);
    }
}

package org.pettingllms.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.TrainExample;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.task.ProblemSource;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;

/** The training loop with a scripted sampler and a recording learner: routing, on-policy checks, resume. */
class TrainerTest {
    final CounterTask task = new CounterTask(List.of("a", "b"), 3);
    final PolicyMap l2 = PolicyMap.forLevel(Level.L2, task.roles(), "m", Set.of());
    /** Problem i of a split: target 6 + i % 5. */
    final ProblemSource source = (split, from, count) -> {
        List<Problem> out = new ArrayList<>();
        for (long i = from; i < from + count; i++) {
            out.add(Problem.generated(split + "-" + i, 6 + i % 5));
        }
        return out;
    };

    RunConfig config(int steps) {
        return ConfigLoader.fromYaml(
                "task: {name: counter}\npolicy: {model: m, level: L2}\n",
                "test",
                List.of(
                        "train.steps=" + steps,
                        "rollout.problemsPerStep=4",
                        "rollout.k=3",
                        "train.checkpointEvery=1",
                        "train.validateEvery=2",
                        "validation.problems=3"));
    }

    Trainer trainer(RunConfig cfg, RecordingLearner learner, Path dir) {
        ScriptedSampler sampler =
                ScriptedSampler.of((p, prompt, rng) -> Integer.toString(rng.nextInt(4)), learner::version);
        return new Trainer(cfg, task, source, l2, sampler, learner, dir);
    }

    @Test
    void aStepUpdatesEachRolesAdapterWithItsOwnSamples(@TempDir Path dir) throws Exception {
        RecordingLearner learner = new RecordingLearner();
        StepReport m = trainer(config(1), learner, dir).step(0);
        assertThat(learner.batches()).hasSize(2);
        for (RecordingLearner.Batch b : learner.batches()) {
            assertThat(b.policy().adapter()).isIn("a", "b");
            assertThat(b.examples()).isNotEmpty();
        }
        assertThat(learner.optimSteps(new PolicyRef("m", "a"))).isEqualTo(1);
        assertThat(m.step()).isZero();
        assertThat(m.values())
                .containsKeys(
                        Metric.SUCCESS,
                        Metric.reward("a"),
                        "reward/b/team",
                        Metric.ADV_NONZERO,
                        Metric.train("loss", "m+a"),
                        Metric.train("grad_norm", "m+b"),
                        Metric.ROLLOUT_S,
                        Metric.TOKENS_PER_S);
        assertThat(Files.readAllLines(dir.resolve("metrics.jsonl"))).hasSize(1);
        assertThat(MetricsLog.read(dir.resolve("metrics.jsonl"))).containsExactly(m); // the line reads back whole
        assertThat(dir.resolve("checkpoints/latest.json")).exists();
    }

    @Test
    void theTrainingLoopOwnsTheScheduleAndAResumedRunFollowsIt(@TempDir Path dir) throws Exception {
        // warmup 1 training step (= 2 optimizer steps), then cosine to 0.1 x 1e-3 over 4 steps x 2 mini-batches
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: counter}\npolicy: {model: m, level: L2}\n",
                "test",
                List.of(
                        "train.steps=4",
                        "rollout.problemsPerStep=4",
                        "rollout.k=3",
                        "train.miniBatches=2",
                        "train.schedule=cosine",
                        "train.warmupSteps=1",
                        "train.minLrRatio=0.1",
                        "train.learningRate=1.0e-3",
                        "train.checkpointEvery=1",
                        "train.validateEvery=0",
                        "validation.problems=0"));
        RecordingLearner learner = new RecordingLearner();
        Trainer t = trainer(cfg, learner, dir);
        t.step(0);
        t.step(1);
        // a new process resumes after step 2: the schedule continues at optimizer step 4, not from the start
        RecordingLearner resumed = new RecordingLearner();
        trainer(cfg, resumed, dir).run(true);
        List<Double> lrs = new ArrayList<>(learner.learningRates());
        lrs.addAll(resumed.learningRates());
        // two policies step in turn: a, b at each schedule position; positions 0..7
        double[] expected = {
            0.5e-3,
            1e-3,
            1e-3,
            0.1e-3 + 0.9e-3 * 0.5 * (1 + Math.cos(Math.PI / 6)),
            0.1e-3 + 0.9e-3 * 0.5 * (1 + Math.cos(Math.PI * 2 / 6)),
            0.1e-3 + 0.9e-3 * 0.5,
            0.1e-3 + 0.9e-3 * 0.5 * (1 + Math.cos(Math.PI * 4 / 6)),
            0.1e-3 + 0.9e-3 * 0.5 * (1 + Math.cos(Math.PI * 5 / 6))
        };
        assertThat(lrs).hasSize(16);
        List<Double> a = new ArrayList<>();
        for (int step = 0; step < 4; step++) { // per step: a's two updates, then b's two (policies in order)
            a.add(lrs.get(4 * step));
            a.add(lrs.get(4 * step + 1));
            assertThat(lrs.subList(4 * step + 2, 4 * step + 4))
                    .as("b follows the same schedule")
                    .isEqualTo(lrs.subList(4 * step, 4 * step + 2));
        }
        for (int i = 0; i < 8; i++) {
            assertThat(a.get(i)).as("optimizer step %d", i).isCloseTo(expected[i], Assertions.within(1e-12));
        }
    }

    @Test
    void aKilledRunResumesWithTheSameDataSeedsAndMetrics(@TempDir Path dir) throws Exception {
        RunConfig cfg = config(5);
        trainer(cfg, new RecordingLearner(), dir.resolve("full")).run(false);
        // killed after step 3 (index 2), with a torn metrics line; then a fresh process resumes
        Trainer killed = trainer(cfg, new RecordingLearner(), dir.resolve("resumed"));
        for (int step = 0; step < 3; step++) {
            killed.step(step);
        }
        Files.writeString(
                dir.resolve("resumed/metrics.jsonl"), "{\"step\": 3, \"torn", java.nio.file.StandardOpenOption.APPEND);
        RecordingLearner fresh = new RecordingLearner();
        trainer(cfg, fresh, dir.resolve("resumed")).run(true);
        assertThat(fresh.optimSteps(new PolicyRef("m", "a"))).isEqualTo(5);
        var full = MetricsLog.read(dir.resolve("full/metrics.jsonl"));
        var resumed = MetricsLog.read(dir.resolve("resumed/metrics.jsonl"));
        assertThat(resumed).hasSize(5);
        for (int i = 0; i < 5; i++) {
            assertThat(withoutTimes(resumed.get(i))).as("step %d", i).isEqualTo(withoutTimes(full.get(i)));
        }
        assertThat(full.get(4).has(Metric.VAL + Metric.SUCCESS)).isTrue();
    }

    static Map<String, Double> withoutTimes(StepReport m) {
        Map<String, Double> out = new TreeMap<>(m.values());
        out.keySet().removeIf(k -> k.startsWith("time/") || k.equals(Metric.TOKENS_PER_S));
        out.put("step", (double) m.step());
        return out;
    }

    @Test
    void miniBatchesAndEpochsGiveOneOptimizerStepEachOverAPartitionOfTheSamples(@TempDir Path dir) throws Exception {
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: counter}\npolicy: {model: m, level: L2}\n",
                "test",
                List.of(
                        "train.steps=4",
                        "rollout.problemsPerStep=4",
                        "rollout.k=3",
                        "train.miniBatches=3",
                        "train.epochs=2",
                        "validation.problems=0"));
        assertThat(cfg.train().lr().totalSteps())
                .as("the schedule counts optimizer steps")
                .isEqualTo(4 * 6);
        assertThat(cfg.train().lr().warmupSteps()).isEqualTo(2 * 6);
        RecordingLearner single = new RecordingLearner();
        trainer(config(1), single, dir.resolve("one")).step(0);
        RecordingLearner learner = new RecordingLearner();
        trainer(cfg, learner, dir.resolve("mini")).step(0);
        PolicyRef a = new PolicyRef("m", "a");
        assertThat(learner.optimSteps(a)).isEqualTo(6);
        var all = single.batches().stream()
                .filter(b -> b.policy().equals(a))
                .findFirst()
                .orElseThrow()
                .examples();
        var batches = learner.batches().stream()
                .filter(b -> b.policy().equals(a))
                .map(RecordingLearner.Batch::examples)
                .toList();
        assertThat(batches).hasSize(6);
        for (int epoch = 0; epoch < 2; epoch++) {
            List<TrainExample> pass = new ArrayList<>();
            for (var mb : batches.subList(3 * epoch, 3 * epoch + 3)) {
                assertThat(mb.size()).isBetween(all.size() / 3, all.size() / 3 + 1);
                pass.addAll(mb);
            }
            assertThat(pass).as("epoch %d covers each sample once", epoch).containsExactlyInAnyOrderElementsOf(all);
            assertThat(pass).as("shuffled").isNotEqualTo(all);
        }
        assertThat(batches.get(0)).as("each epoch draws its own order").isNotEqualTo(batches.get(3));
    }

    @Test
    void samplesFromStaleWeightsStopTraining(@TempDir Path dir) throws Exception {
        RecordingLearner learner = new RecordingLearner();
        ScriptedSampler stale = ScriptedSampler.of((p, prompt, rng) -> "1", p -> 0); // never sees a publication
        Trainer t = new Trainer(config(2), task, source, l2, stale, learner, dir);
        t.step(0); // the untrained weights are version 0: on-policy
        long now = learner.version(new PolicyRef("m", "a"));
        assertThat(now).as("the first step's optimizer steps moved the weights").isPositive();
        assertThatThrownBy(() -> t.step(1))
                .hasMessageContaining("off-policy sample")
                .hasMessageContaining("weight version 0 of")
                .hasMessageContaining("version " + now + " was published");
    }
}

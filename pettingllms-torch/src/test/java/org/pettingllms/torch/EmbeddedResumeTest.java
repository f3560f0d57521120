package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.ConfigLoader;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.train.Metric;
import org.pettingllms.core.train.MetricsLog;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.core.train.Trainer;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * A run killed after a checkpoint and resumed in a fresh engine (new process state: weights, optimizer moments and
 * weight versions from the checkpoint only) has the metrics of the run that was never interrupted, under a cosine
 * schedule so that the resumed optimizer steps must also pick up the schedule where it was.
 */
class EmbeddedResumeTest {
    static final String MODEL =
            SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();

    @Tag("heavy")
    @Test
    void aResumedRunHasTheMetricsOfAnUninterruptedOne(@TempDir Path dir) throws Exception {
        RunConfig cfg = ConfigLoader.fromYaml(
                "task: {name: plan-path}\npolicy: {model: '" + MODEL + "', level: L2}\n",
                "test",
                List.of(
                        "train.steps=3",
                        "rollout.problemsPerStep=3",
                        "rollout.k=3",
                        "rollout.sampling.maxTokens=16",
                        "train.miniBatches=2",
                        "train.learningRate=5.0e-3",
                        "train.schedule=cosine",
                        "train.warmupSteps=1",
                        "train.checkpointEvery=1",
                        "train.validateEvery=0",
                        "validation.problems=0",
                        // one request (k rows) per generation batch: which requests meet in a batch depends on
                        // timing, and a batch's shape (shared prefills included) moves logits in their last bits
                        "engine.maxBatchRows=3"));
        var task = new PlanningTask<>(new PlanPathGame(PlanPathGame.Options.DEFAULT), List.of("tool", "plan"), 2);
        PolicyMap policies = PolicyMap.forLevel(Level.L2, task.roles(), MODEL, Set.of());
        var problems = new SeededProblems(task.id(), 1);
        // The three runs train on a thread of their own with one PyTorch thread. With two, the same mini-batch on
        // the same weights gives gradients that differ in their last bits from run to run when the machine is busy
        // (how the multi-threaded kernels split and combine their work is not fixed), and AdamW's first steps, about
        // lr * sign(g) per weight, turn that noise in near-zero gradients into differences of the learning rate's
        // size: the runs then differ by 7% in the next mini-batch's loss, resumed or not. On one thread two
        // uninterrupted runs agree bit for bit, so what this compares is what resuming restores.
        Torch.runOnOneThread(() -> {
            try (EmbeddedEngine e = EmbeddedEngine.open(cfg, policies)) {
                new Trainer(cfg, task, problems, policies, e.sampler(), e.learner(), dir.resolve("full")).run(false);
            }
            try (EmbeddedEngine e = EmbeddedEngine.open(cfg, policies)) {
                Trainer killed =
                        new Trainer(cfg, task, problems, policies, e.sampler(), e.learner(), dir.resolve("resumed"));
                killed.step(0);
                killed.step(1);
            }
            try (EmbeddedEngine e = EmbeddedEngine.open(cfg, policies)) {
                new Trainer(cfg, task, problems, policies, e.sampler(), e.learner(), dir.resolve("resumed")).run(true);
            }
        });
        List<StepReport> full = MetricsLog.read(dir.resolve("full/metrics.jsonl"));
        List<StepReport> resumed = MetricsLog.read(dir.resolve("resumed/metrics.jsonl"));
        assertThat(resumed).hasSize(3);
        for (int step = 0; step < 3; step++) {
            assertThat(resumed.get(step).step()).isEqualTo(step);
            assertThat(resumed.get(step).values().keySet())
                    .isEqualTo(full.get(step).values().keySet());
            for (var kv : full.get(step).values().entrySet()) {
                if (kv.getKey().startsWith("time/") || kv.getKey().equals(Metric.TOKENS_PER_S)) {
                    continue;
                }
                assertThat(resumed.get(step).get(kv.getKey()))
                        .as("step %d %s", step, kv.getKey())
                        .isCloseTo(kv.getValue(), within(1e-5));
            }
        }
    }
}

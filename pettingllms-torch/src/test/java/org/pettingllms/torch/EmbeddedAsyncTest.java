package org.pettingllms.torch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
 * Asynchronous training on the embedded engine: the sampler rolls out beside the learner on the live weights, yet a
 * seed repeats the run to the bit, stale steps are corrected (the policy moved between sampling and the update), and
 * a staleness bound of 0 is the synchronous run.
 */
class EmbeddedAsyncTest {
    static final String MODEL =
            SharedFiles.projectRoot().resolve("models/plan-path-tiny").toString();

    static RunConfig config(String... more) {
        List<String> o = new ArrayList<>(List.of(
                "train.steps=4",
                "rollout.problemsPerStep=3",
                "rollout.k=3",
                "rollout.sampling.maxTokens=16",
                "train.miniBatches=2",
                "train.learningRate=5.0e-3",
                "train.checkpointEvery=0",
                "train.validateEvery=0",
                "validation.problems=0"));
        o.addAll(List.of(more));
        return ConfigLoader.fromYaml(
                "task: {name: plan-path}\npolicy: {model: '" + MODEL + "', level: L2}\n", "test", o);
    }

    static List<StepReport> train(RunConfig cfg, Path dir) throws Exception {
        var task = new PlanningTask<>(new PlanPathGame(PlanPathGame.Options.DEFAULT), List.of("tool", "plan"), 2);
        PolicyMap policies = PolicyMap.forLevel(Level.L2, task.roles(), MODEL, Set.of());
        Torch.runOnOneThread(() -> {
            try (EmbeddedEngine e = EmbeddedEngine.open(cfg, policies)) {
                new Trainer(cfg, task, new SeededProblems(task.id(), 1), policies, e.sampler(), e.learner(), dir)
                        .run(false);
            }
        });
        return MetricsLog.read(dir.resolve("metrics.jsonl"));
    }

    static List<Map<String, Double>> withoutTimes(List<StepReport> reports, boolean withAsync) {
        List<Map<String, Double>> out = new ArrayList<>();
        for (StepReport r : reports) {
            Map<String, Double> m = new TreeMap<>(r.values());
            m.keySet()
                    .removeIf(k -> k.startsWith("time/")
                            || k.equals(Metric.TOKENS_PER_S)
                            || k.startsWith("async/wait_")
                            || (!withAsync && k.startsWith("async/")));
            out.add(m);
        }
        return out;
    }

    @Tag("heavy")
    @Test
    void anAsyncRunRepeatsToTheBitAndCorrectsItsStaleSteps(@TempDir Path dir) throws Exception {
        RunConfig async = config("train.async.enabled=true", "train.async.maxStaleness=1");
        List<StepReport> first = train(async, dir.resolve("a"));
        List<StepReport> second = train(async, dir.resolve("b"));
        assertThat(withoutTimes(second, true)).isEqualTo(withoutTimes(first, true));
        assertThat(first.stream().map(r -> r.get(Metric.ASYNC_STALENESS))).containsExactly(0.0, 1.0, 1.0, 1.0);
        StepReport stale = first.get(2);
        assertThat(stale.get(Metric.ASYNC_LAG))
                .as("the policy moved between sampling and the update")
                .isPositive();
        assertThat(stale.get(Metric.ASYNC_WEIGHT)).isNotEqualTo(1.0);
        // eta 0: the synchronous run
        List<StepReport> zero =
                train(config("train.async.enabled=true", "train.async.maxStaleness=0"), dir.resolve("z"));
        List<StepReport> sync = train(config(), dir.resolve("s"));
        assertThat(withoutTimes(zero, false)).isEqualTo(withoutTimes(sync, false));
    }
}

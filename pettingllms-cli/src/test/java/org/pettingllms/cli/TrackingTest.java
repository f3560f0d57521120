package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.train.MlflowTracker;
import org.pettingllms.core.train.StepReport;
import org.pettingllms.testkit.FakeMlflow;

/**
 * Where users watch runs: {@code train} with {@code MLFLOW_TRACKING_URI} logs params, per-step metrics and the
 * run's files to a server that answers as MLflow's REST API does, and every run writes TensorBoard events.
 */
class TrackingTest {
    @TempDir
    Path dir;

    static String[] tinyTrain(Path out) {
        return Args.of("train", CliTest.config("sokoban/L0.yaml"))
                .smallRun("fresh:tiny", out, 4)
                .set("task.maxTurns=1", "train.steps=2", "train.validateEvery=1")
                .array();
    }

    @Test
    void aTrainedRunIsOnMlflowWithParamsMetricsAndFiles() throws Exception {
        try (FakeMlflow mlflow = new FakeMlflow()) {
            Map<String, String> env = new HashMap<>(System.getenv());
            env.put("MLFLOW_TRACKING_URI", mlflow.uri());
            env.put("MLFLOW_EXPERIMENT_NAME", "my experiment");
            CliTest.Result r = CliTest.run(env, tinyTrain(dir));
            assertThat(r.code()).as(r.err()).isZero();
            assertThat(r.out()).contains("tracking on MLflow: run run0");
            assertThat(mlflow.calls)
                    .startsWith(
                            "GET /api/2.0/mlflow/experiments/get-by-name",
                            "POST /api/2.0/mlflow/experiments/create",
                            "POST /api/2.0/mlflow/runs/create");
            assertThat(mlflow.runName).isEqualTo("sokoban-L0");
            assertThat(mlflow.tags)
                    .containsEntry("pettingllms.task", "sokoban-v1")
                    .containsEntry("pettingllms.level", "L0");
            assertThat(mlflow.params)
                    .containsEntry("run.seed", "1")
                    .containsEntry("train.steps", "2")
                    .containsEntry("rollout.k", "2")
                    .containsKey("train.learningRate");
            List<Long> successSteps = mlflow.metrics.stream()
                    .filter(p -> p.key().equals("success/rate"))
                    .map(FakeMlflow.Point::step)
                    .toList();
            assertThat(successSteps).containsExactly(0L, 1L);
            assertThat(mlflow.metrics).anyMatch(p -> p.key().equals("val/success/rate") && p.step() == 1);
            assertThat(mlflow.metrics).anyMatch(p -> p.key().startsWith("train/loss/"));
            assertThat(mlflow.artifacts).containsOnlyKeys("run.json", "metrics.jsonl", "report.html");
            Path run = dir.resolve("sokoban-L0");
            assertThat(mlflow.artifacts.get("metrics.jsonl"))
                    .isEqualTo(Files.readAllBytes(run.resolve("metrics.jsonl")));
            assertThat(new String(mlflow.artifacts.get("report.html"), StandardCharsets.UTF_8))
                    .contains("<html");
            assertThat(mlflow.runStatus).isEqualTo("FINISHED");
            // and TensorBoard's events beside metrics.jsonl
            try (var files = Files.list(run)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .anyMatch(n -> n.startsWith("events.out.tfevents."));
            }
        }
    }

    @Tag("heavy")
    @Test
    void anUnreachableServerIsOneLineBeforeAnythingTrains() throws Exception {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("MLFLOW_TRACKING_URI", "http://127.0.0.1:9"); // the discard port: nothing listens
        CliTest.Result r = CliTest.run(env, tinyTrain(dir));
        assertThat(r.code()).isNotZero();
        assertThat(r.err())
                .contains("MLflow server http://127.0.0.1:9: experiments/get-by-name")
                .doesNotContain("\tat ");
        assertThat(dir.resolve("sokoban-L0/checkpoints")).doesNotExist();
    }

    @Test
    void manyNumbersGoInBatchesWithKeysMlflowAccepts() throws Exception {
        try (FakeMlflow mlflow = new FakeMlflow()) {
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < 150; i++) {
                params.put("p" + i, "x".repeat(i == 0 ? 7000 : 1));
            }
            MlflowTracker t = MlflowTracker.start(mlflow.uri(), "e", "r", params, Map.of());
            Map<String, Double> values = new LinkedHashMap<>();
            for (int i = 0; i < 1500; i++) {
                values.put("train/loss/model:role" + i, (double) i);
            }
            values.put("nan", Double.NaN);
            t.step(new StepReport(7, values));
            t.finish(false, List.of(dir.resolve("missing.txt")));
            assertThat(mlflow.params).hasSize(150);
            assertThat(mlflow.params.get("p0")).hasSize(6000);
            assertThat(mlflow.metrics).hasSize(1500).allMatch(p -> p.step() == 7);
            assertThat(mlflow.metrics.get(3).key()).isEqualTo("train/loss/model_role3");
            assertThat(mlflow.calls.stream().filter(c -> c.endsWith("log-batch")))
                    .hasSize(2 + 2);
            assertThat(mlflow.runStatus).isEqualTo("FAILED");
            assertThat(mlflow.artifacts).isEmpty();
        }
    }
}

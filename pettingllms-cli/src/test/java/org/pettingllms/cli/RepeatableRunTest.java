package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train} twice with one seed and the default settings: the same step lines, and every metric but the clocks
 * equal to the last bit (rollouts in lockstep, the learner on one thread: both the defaults), with a validation and a
 * tool that runs programs.
 */
class RepeatableRunTest {
    @Tag("heavy")
    @Test
    void twoRunsWithOneSeedAreTheSameRun(@TempDir Path dir) throws Exception {
        List<List<String>> lines = new ArrayList<>();
        List<List<JsonNode>> metrics = new ArrayList<>();
        for (String name : List.of("first", "second")) {
            CliTest.Result r = CliTest.run(
                    "train",
                    CliTest.CONFIGS.resolve("plan-path/L2.yaml").toString(),
                    "--set",
                    "policy.model="
                            + org.pettingllms.testkit.SharedFiles.projectRoot().resolve("models/plan-path-discovery"),
                    "--set",
                    "run.outputDir=" + dir,
                    "--set",
                    "run.name=" + name,
                    "--set",
                    "rollout.problemsPerStep=3",
                    "--set",
                    "rollout.k=3",
                    "--set",
                    "rollout.sampling.maxTokens=96",
                    "--set",
                    "validation.problems=4",
                    "--set",
                    "validation.sampling.maxTokens=96",
                    "--set",
                    "train.validateEvery=2",
                    "--set",
                    "train.steps=2");
            assertThat(r.code()).as(r.err()).isZero();
            lines.add(r.out()
                    .lines()
                    .filter(l -> l.startsWith("step "))
                    .map(l -> l.replaceAll("\\| [0-9.]+ s.*", ""))
                    .toList());
            List<JsonNode> rows = new ArrayList<>();
            for (String l : Files.readAllLines(dir.resolve(name).resolve("metrics.jsonl"))) {
                rows.add(new ObjectMapper().readTree(l));
            }
            metrics.add(rows);
        }
        assertThat(lines.get(0)).hasSize(2);
        assertThat(lines.get(1)).isEqualTo(lines.get(0));
        for (int step = 0; step < 2; step++) {
            JsonNode a = metrics.get(0).get(step);
            JsonNode b = metrics.get(1).get(step);
            assertThat(a.fieldNames()).toIterable().anyMatch(k -> k.startsWith("train/grad_norm/"));
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!e.getKey().endsWith("_s") && !e.getKey().contains("per_s")) { // clocks differ, nothing else
                    assertThat(b.get(e.getKey()))
                            .as("step %d %s", step, e.getKey())
                            .isEqualTo(e.getValue());
                }
            }
        }
    }
}

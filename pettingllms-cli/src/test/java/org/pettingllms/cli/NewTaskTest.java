package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task added in its own package (org.pettingllms.cli.toy: the task, its provider and a services line) runs
 * through rollout, evaluate --policy and sft with no change anywhere else: the command line names no task.
 */
class NewTaskTest {
    @Test
    void aToyTaskRunsThroughRolloutEvaluateAndSft(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("toy.yaml");
        Files.writeString(cfg, """
                run: {name: toy, outputDir: '%s'}
                task: {name: toy-sum, style: compact, maxTurns: 1}
                policy: {model: 'fresh:tiny', level: L1}
                rollout: {k: 2, problemsPerStep: 2, sampling: {maxTokens: 4}}
                validation: {problems: 4, sampling: {maxTokens: 4}}
                """.formatted(dir));
        CliTest.Result rollout = CliTest.run("rollout", cfg.toString(), "--problems", "4", "--show", "1");
        assertThat(rollout.code()).as(rollout.err()).isZero();
        assertThat(rollout.out())
                .contains("=== episode toy-sum-v1/validation/0")
                .contains("adder:");

        CliTest.Result oracle =
                CliTest.run("evaluate", cfg.toString(), "--policy", "oracle", "--set", "validation.problems=20");
        assertThat(oracle.code()).as(oracle.err()).isZero();
        assertThat(oracle.out()).contains("| validation problems 0-19 x 1 |").contains("success 100.0%");
        assertThat(CliTest.run("evaluate", cfg.toString(), "--policy", "wrong").out())
                .contains("success 0.0%");

        Path model = dir.resolve("model");
        CliTest.Result sft = CliTest.run(
                "sft", cfg.toString(), "--steps", "2", "--batch", "4", "--eval", "4", "--out", model.toString());
        assertThat(sft.code()).as(sft.err()).isZero();
        assertThat(sft.out()).contains("step 2/2 | loss").contains("checker alone");
        assertThat(model.resolve("model.safetensors")).exists();
        assertThat(Files.readString(model.resolve("README.md"))).contains("toy-sum-v1");
    }
}

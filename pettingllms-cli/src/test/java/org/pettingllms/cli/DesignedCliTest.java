package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A designed system through the commands, on the embedded engine with the project's tiny math model: {@code evaluate
 * --workflow} runs a hand-written workflow, {@code train} co-trains a designer and its executors for a step, and a
 * wrong workflow file or a task config given a workflow is one line.
 */
class DesignedCliTest {
    static Path config(Path dir) throws Exception {
        Path model = Path.of("..", "models", "math-tiny").toAbsolutePath().normalize();
        return Files.writeString(dir.resolve("design.yaml"), """
                run: {name: designed, seed: 1, outputDir: %s}
                task:
                  name: design-math
                  style: compact
                  roles: [solver, critic]
                  options:
                    generator: arithmetic
                    design: {executions: 2, schedule: simultaneous}
                policy: {level: L2, model: %s}
                rollout: {mode: parallel, k: 2, problemsPerStep: 2, sampling: {maxTokens: 48}}
                train: {steps: 1, checkpointEvery: 0, validateEvery: 0}
                validation: {problems: 2, sampling: {maxTokens: 48}}
                """.formatted(dir.resolve("runs"), model));
    }

    @Test
    void evaluateRunsAHandWrittenWorkflowAndRefusesAWrongOne(@TempDir Path dir) throws Exception {
        Path cfg = config(dir);
        Path flow = Files.writeString(
                dir.resolve("two.flow"),
                "sequence\n  agent solver [python]: Write a program that prints the answer.\n"
                        + "  agent critic: State the answer.\n");
        CliTest.Result r = CliTest.run("evaluate", cfg.toString(), "--workflow", flow.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("design-math-v1 |").contains("| validation problems 0-1 x 1 | success ");
        assertThat(r.out()).contains("solver").contains("critic").doesNotContain("designer");

        Path bad = Files.writeString(dir.resolve("bad.flow"), "ensemble 9 majority\n  agent solver: Go.\n");
        CliTest.Result refused = CliTest.run("evaluate", cfg.toString(), "--workflow", bad.toString());
        assertThat(refused.code()).isEqualTo(2);
        assertThat(refused.err().strip())
                .isEqualTo("error: --workflow " + bad + ": line 1: an ensemble's k must be 2 to 5, got 9");

        CliTest.Result task = CliTest.run(
                "evaluate", CliTest.CONFIGS.resolve("math/L1.yaml").toString(), "--workflow", flow.toString());
        assertThat(task.code()).isEqualTo(2);
        assertThat(task.err()).contains("a workflow runs on a designed system").contains("design-math");
    }

    @Test
    void trainCoTrainsTheDesignerAndItsExecutors(@TempDir Path dir) throws Exception {
        CliTest.Result r = CliTest.run("train", config(dir).toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("training design-math-v1 | level L2 | 1 steps");
        String metrics = Files.readString(dir.resolve("runs/designed/metrics.jsonl"));
        // the tiny math model never saw the workflow language: its designs are invalid and paid the penalty
        assertThat(metrics).contains("\"reward/designer/mean\":-1").contains("\"design/invalid\":4");
    }

    @Test
    void sftWarmsUpADesignedSystemAndRolloutShowsItsDesigns(@TempDir Path dir) throws Exception {
        Path model = Path.of("..", "models", "math-tiny").toAbsolutePath().normalize();
        Path out = dir.resolve("warm");
        CliTest.Result r = CliTest.run(
                "sft",
                CliTest.CONFIGS.resolve("designer/L2.yaml").toString(),
                "--set",
                "policy.model=" + model,
                "--steps",
                "2",
                "--batch",
                "2",
                "--eval",
                "2",
                "--out",
                out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("sft " + model + " on design-mix-v1")
                .contains("greedy success on 2 validation problems: designed system");
        assertThat(Files.readString(out.resolve("README.md")))
                .contains("the designed system (its designer and executors)");
        // a team's options are refused in one line
        CliTest.Result wrong = CliTest.run(
                "sft",
                CliTest.CONFIGS.resolve("designer/L2.yaml").toString(),
                "--set",
                "policy.model=" + model,
                "--alone",
                "0.5",
                "--out",
                dir.resolve("x").toString());
        assertThat(wrong.code()).isEqualTo(2);
        assertThat(wrong.err()).contains("--alone").contains("a designed system's warm-up takes");
        CliTest.Result scripted = CliTest.run(
                "rollout", CliTest.CONFIGS.resolve("designer/L2.yaml").toString());
        assertThat(scripted.code()).isEqualTo(2);
        assertThat(scripted.err()).contains("use --policy model");
    }

    @Tag("heavy")
    @Test
    void evaluateRunsRandomValidDesignsInPlaceOfTheDesigner() {
        Path model = Path.of("..", "models", "math-tiny").toAbsolutePath().normalize();
        String cfg = CliTest.CONFIGS.resolve("designer/L2.yaml").toString();
        String[] base = {
            "evaluate", cfg, "--set", "policy.model=" + model, "--set", "validation.problems=4", "--random-designs"
        };
        CliTest.Result r = CliTest.run(base);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("design-mix-v1 |")
                .contains("success by kind: ")
                .contains("designs for ")
                .doesNotContain("designer ");
        CliTest.Result again = CliTest.run(base);
        assertThat(again.out().lines().filter(l -> l.contains("designs for ")).toList())
                .as("a problem's random design is drawn from its seed")
                .isEqualTo(
                        r.out().lines().filter(l -> l.contains("designs for ")).toList());
        CliTest.Result both = CliTest.run(
                "evaluate", cfg, "--random-designs", "--workflow", "configs/designer/workflows/direct.flow");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("give one of them");
    }

    @Test
    void reportChartsSuccessAndDesignShapesByKind(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("metrics.jsonl"), """
                {"step":0,"success":0.5,"design/kind/letters/executions":8,"design/kind/letters/solved":2,                "design/shape/letters/agent":3,"design/shape/letters/ensemble(5)[agent]":1}
                {"step":1,"success":0.6,"design/kind/letters/executions":8,"design/kind/letters/solved":6,                "design/shape/letters/ensemble(5)[agent]":4}
                """);
        CliTest.Result r = CliTest.run("report", dir.toString());
        assertThat(r.code()).as(r.err()).isZero();
        String html = Files.readString(dir.resolve("report.html"));
        assertThat(html)
                .contains("Success by problem kind")
                .contains("Design shapes for letters problems (share of the step")
                .doesNotContain("Design shapes for letters problems in greedy validation");
    }
}

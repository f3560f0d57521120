package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.cli.toybackend.CountingBackend;

/**
 * A learner backend added in its own package ({@code toybackend}: the backend and a services line) is chosen by
 * {@code learner.kind} in train, evaluate and rollout with no change to any command, and trains as the embedded
 * backend it wraps: the same metrics, step for step.
 */
class NewBackendTest {
    @Tag("heavy")
    @Test
    void aToyBackendIsChosenByItsKindInEveryCommand(@TempDir Path dir) throws Exception {
        String config = CliTest.CONFIGS.resolve("plan-path/L2.yaml").toString();
        String[] small = {
            "--set", "run.outputDir=" + dir,
            "--set", "policy.model=fresh:tiny",
            "--set", "task.options.tool=answer",
            "--set", "train.steps=2",
            "--set", "train.validateEvery=0",
            "--set", "validation.problems=2",
            "--set", "rollout.problemsPerStep=2",
            "--set", "rollout.sampling.maxTokens=16"
        };
        CliTest.Result embedded = CliTest.run(sets(with(new String[] {"train", config}, small), "run.name=embedded"));
        assertThat(embedded.code()).as(embedded.err()).isZero();
        CountingBackend.OPENED.set(0);
        CountingBackend.OPTIMIZER_STEPS.set(0);
        CliTest.Result toy = CliTest.run(
                sets(with(new String[] {"train", config}, small), "run.name=toy", "learner.kind=toy-counting"));
        assertThat(toy.code()).as(toy.err()).isZero();
        assertThat(CountingBackend.OPENED.get()).isEqualTo(1);
        assertThat(CountingBackend.OPTIMIZER_STEPS.get()).isPositive();
        assertThat(metrics(dir.resolve("toy"))).isEqualTo(metrics(dir.resolve("embedded")));

        CliTest.Result evaluate = CliTest.run(sets(
                with(new String[] {"evaluate", config, "--set", "validation.problems=2"}, small),
                "learner.kind=toy-counting"));
        assertThat(evaluate.code()).as(evaluate.err()).isZero();
        CliTest.Result rollout = CliTest.run(sets(
                with(new String[] {"rollout", config, "--policy", "model", "--problems", "2"}, small),
                "learner.kind=toy-counting"));
        assertThat(rollout.code()).as(rollout.err()).isZero();
        assertThat(CountingBackend.OPENED.get()).isEqualTo(3);
    }

    /** Each step's metrics without its timings (seconds differ between runs). */
    private static List<String> metrics(Path run) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<String> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(run.resolve("metrics.jsonl"))) {
            var step = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(line);
            step.properties().removeIf(e -> e.getKey().matches(".*(per_s|time|seconds|wait).*"));
            out.add(step.toString());
        }
        return out;
    }

    private static String[] sets(String[] args, String... sets) {
        String[] out = java.util.Arrays.copyOf(args, args.length + 2 * sets.length);
        for (int i = 0; i < sets.length; i++) {
            out[args.length + 2 * i] = "--set";
            out[args.length + 2 * i + 1] = sets[i];
        }
        return out;
    }

    private static String[] with(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.tinker.server.TinkerServer;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * A backend that only tokenises loads only the tokenizer: a run whose updates and rollouts are on a Tinker service
 * reads its model's config.json and tokenizer and no weight. The model directory the run names here has a
 * model.safetensors that is not one (which the embedded engine refuses, as the control shows), and train, evaluate
 * and rollout on the service go through all the same.
 */
class TokenizerOnlyBackendTest {
    @Tag("heavy")
    @Test
    void aRunOnATinkerServiceReadsNoLocalWeight(@TempDir Path dir) throws Exception {
        Path model = SharedFiles.projectRoot().resolve("models/plan-path-tiny");
        Path tokenizerOnly = Files.createDirectories(dir.resolve("tiny"));
        for (String f : new String[] {"config.json", "tokenizer.json", "tokenizer_config.json"}) {
            Files.copy(model.resolve(f), tokenizerOnly.resolve(f));
        }
        Files.writeString(tokenizerOnly.resolve("model.safetensors"), "not weights");
        String[] common = {
            "--set", "policy.model=" + tokenizerOnly,
            "--set", "run.outputDir=" + dir.resolve("runs"),
            "--set", "rollout.problemsPerStep=2",
            "--set", "rollout.sampling.maxTokens=24",
            "--set", "validation.problems=2",
            "--set", "validation.sampling.maxTokens=24",
            "--set", "task.options.tool=answer"
        };
        String config = CliTest.CONFIGS.resolve("plan-path/L2.yaml").toString();

        CliTest.Result control =
                CliTest.run(concat(new String[] {"rollout", config, "--policy", "model", "--problems", "2"}, common));
        assertThat(control.code())
                .as("the embedded engine reads the weights file")
                .isNotZero();
        assertThat(control.err()).contains("model.safetensors");

        try (EmbeddedEngine engine = EmbeddedEngine.forServing(model.toString(), "cpu");
                TinkerServer s = new TinkerServer(
                                engine,
                                model.toString(),
                                new TinkerServer.Options("127.0.0.1", 0, "tiny", dir.resolve("state"), 8, 1))
                        .start()) {
            String[] service = concat(common, new String[] {
                "--set", "learner.kind=tinker", "--set", "learner.url=" + s.uri(), "--set", "learner.baseModel=tiny"
            });
            CliTest.Result train = CliTest.run(concat(
                    new String[] {
                        "train",
                        config,
                        "--set",
                        "run.name=svc",
                        "--set",
                        "train.steps=1",
                        "--set",
                        "train.checkpointEvery=1",
                        "--set",
                        "train.validateEvery=1"
                    },
                    service));
            assertThat(train.code()).as(train.err()).isZero();
            assertThat(train.out())
                    .contains("updates and rollouts on the Tinker service")
                    .contains("step 1/1");
            CliTest.Result evaluate = CliTest.run(concat(
                    new String[] {
                        "evaluate",
                        config,
                        "--split",
                        "test",
                        "--set",
                        "validation.problems=2",
                        "--checkpoint",
                        dir.resolve("runs/svc/checkpoints").toString()
                    },
                    service));
            assertThat(evaluate.code()).as(evaluate.err()).isZero();
            assertThat(evaluate.out()).contains("at the service").contains("success");
            CliTest.Result rollout = CliTest.run(
                    concat(new String[] {"rollout", config, "--policy", "model", "--problems", "2"}, service));
            assertThat(rollout.code()).as(rollout.err()).isZero();
            // a model path that is not a model is still one line, before anything starts
            String[] missing = concat(service, new String[] {"--set", "policy.model=" + dir.resolve("none")});
            CliTest.Result wrong = CliTest.run(concat(
                    new String[] {"train", config, "--set", "run.name=wrong", "--set", "train.steps=1"}, missing));
            assertThat(wrong.code()).isEqualTo(2);
            assertThat(wrong.err()).contains("config key 'policy.model'").contains("is neither a model directory");
            assertThat(wrong.out()).doesNotContain("Tinker service");
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

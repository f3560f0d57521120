package org.pettingllms.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PETTINGLLMS_SMOKE keeps a command as written and caps its work (the docs check runs the docs' commands so). */
class SmokeTest {
    static final Map<String, String> SMOKE = Map.of(Smoke.VARIABLE, "1");

    @Tag("heavy")
    @Test
    void aRunAndAWarmUpKeepTheirArgumentsButDoLittle(@TempDir Path dir) throws Exception {
        CliTest.Result train = CliTest.run(
                SMOKE,
                "train",
                CliTest.CONFIGS.resolve("plan-path/L2.yaml").toString(),
                "--set",
                "policy.model=fresh:tiny",
                "--set",
                "train.steps=10",
                "--set",
                "run.outputDir=" + dir);
        assertThat(train.code()).as(train.err()).isZero();
        assertThat(train.out()).contains("| 2 steps |").contains("step 2/2").contains("greedy val");
        Path run = dir.resolve("plan-path-L2");
        assertThat(Files.readAllLines(run.resolve("metrics.jsonl"))).hasSize(2);
        assertThat(run.resolve("checkpoints/step-1")).isDirectory();
        assertThat(Files.readString(run.resolve("run.json")))
                .contains("\"problemsPerStep\" : 2")
                .contains("\"k\" : 2");
        CliTest.Result sft = CliTest.run(
                SMOKE,
                "sft",
                CliTest.CONFIGS.resolve("plan-path/L2.yaml").toString(),
                "--set",
                "policy.model=fresh:tiny",
                "--steps",
                "250",
                "--batch",
                "64",
                "--out",
                dir.resolve("sft").toString());
        assertThat(sft.code()).as(sft.err()).isZero();
        assertThat(sft.out()).contains("step 2/2").contains("greedy success on 2 validation problems");
    }

    @Test
    void withoutTheSwitchNothingIsCapped() {
        assertThat(Smoke.on(Map.of())).isFalse();
        assertThat(Smoke.on(Map.of(Smoke.VARIABLE, "0"))).isFalse();
        assertThat(Smoke.on(SMOKE)).isTrue();
        assertThat(Smoke.cap(Map.of(), 400, 2)).isEqualTo(400);
        assertThat(Smoke.cap(SMOKE, 400, 2)).isEqualTo(2);
        assertThat(Smoke.cap(SMOKE, 1, 2)).isEqualTo(1);
    }
}

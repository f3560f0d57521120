package org.pettingllms.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.algo.Grouping;
import org.pettingllms.core.backend.Level;
import org.pettingllms.core.data.PromptStyle;

class ConfigLoaderTest {
    static final String MINIMAL = "task:\n  name: plan-path\npolicy:\n  model: tiny\n";

    RunConfig load(String yaml, String... sets) {
        return ConfigLoader.fromYaml(yaml, "run.yaml", List.of(sets));
    }

    /**
     * The resolved tree names task options in one order whatever the order they were given in (sorted): run.json and
     * the table's per-cell config hashes must not change from one JVM to the next (Map.copyOf draws its iteration
     * order per JVM, which made a resumed table refuse its own cells).
     */
    @Test
    void taskOptionsResolveInSortedOrder() {
        String yaml = "task: {name: plan-path, options: {wallProb: 0.2, cols: 5, view: text, rows: 4, tool: program,"
                + " zeta: 1, alpha: 2}}\npolicy: {model: m}\n";
        RunConfig cfg = ConfigLoader.fromYaml(yaml, "test", List.of());
        assertThat(List.copyOf(cfg.task().options().keySet()))
                .containsExactly("alpha", "cols", "rows", "tool", "view", "wallProb", "zeta");
        String tree = ConfigLoader.toTree(cfg).path("task").path("options").toString();
        assertThat(tree)
                .isEqualTo("{\"alpha\":2,\"cols\":5,\"rows\":4,\"tool\":\"program\",\"view\":\"text\","
                        + "\"wallProb\":0.2,\"zeta\":1}");
    }

    @Test
    void defaultsFillWhatTheRunLeavesOut() {
        RunConfig c = load(MINIMAL);
        assertThat(c.task().name()).isEqualTo("plan-path");
        assertThat(c.task().style()).isEqualTo(PromptStyle.COMPACT);
        assertThat(c.task().maxTurns()).isEqualTo(4);
        assertThat(c.rollout().k()).isEqualTo(4);
        assertThat(c.rollout().mode()).isEqualTo(RolloutConfig.Mode.TREE);
        assertThat(c.algo().groupBy()).isEqualTo(Grouping.PROBLEM_ROLE_TURN);
        assertThat(c.validation().sampling().temperature()).isZero();
    }

    @Test
    void overridesWinOverTheFileAndKeepTheirTypes() {
        RunConfig c = load(
                MINIMAL + "rollout:\n  k: 8\n",
                "rollout.k=2",
                "policy.level=l2",
                "task.roles=[plan]",
                "rollout.sampling.temperature=0.7",
                "task.options.size=6");
        assertThat(c.rollout().k()).isEqualTo(2);
        assertThat(c.policy().level()).isEqualTo(Level.L2);
        assertThat(c.task().roles()).containsExactly("plan");
        assertThat(c.rollout().sampling().temperature()).isEqualTo(0.7);
        assertThat(c.task().options()).containsEntry("size", 6);
    }

    @Test
    void unknownKeysNameThePathAndTheAllowedKeys() {
        assertThatThrownBy(() -> load(MINIMAL + "rollout:\n  kk: 3\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("run.yaml")
                .hasMessageContaining("unknown config key 'rollout.kk'")
                .hasMessageContaining("greedySelect");
        assertThatThrownBy(() -> load(MINIMAL, "rollout.sampling.tempreature=1"))
                .hasMessageContaining("'rollout.sampling.tempreature'");
    }

    @Test
    void wrongTypesSayWhatWasExpected() {
        assertThatThrownBy(() -> load(MINIMAL, "rollout.k=four"))
                .hasMessageContaining("config key 'rollout.k'")
                .hasMessageContaining("an integer");
        assertThatThrownBy(() -> load(MINIMAL, "rollout.mode=bushy"))
                .hasMessageContaining("'rollout.mode'")
                .hasMessageContaining("[tree, parallel]");
        assertThatThrownBy(() -> load(MINIMAL, "rollout.greedySelect=maybe"))
                .hasMessageContaining("'rollout.greedySelect'")
                .hasMessageContaining("true or false");
    }

    @Test
    void missingRequiredValuesAreNamed() {
        assertThatThrownBy(() -> load("policy:\n  model: tiny\n")).hasMessageContaining("'task.name' is required");
    }

    @Test
    void outOfRangeValuesExplainTheRange() {
        assertThatThrownBy(() -> load(MINIMAL, "rollout.k=0"))
                .hasMessageContaining("'rollout'")
                .hasMessageContaining("k must be >= 1, got 0");
        assertThatThrownBy(() -> load(MINIMAL, "algo.groupFilter=best")).hasMessageContaining("zero-variance");
    }

    @Test
    void badYamlAndBadOverridesPointAtTheProblem(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, "task:\n  name: [unclosed\n");
        assertThatThrownBy(() -> ConfigLoader.load(f, List.of()))
                .hasMessageContaining("bad.yaml")
                .hasMessageContaining("line");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml"), List.of()))
                .hasMessageContaining("config file not found");
        assertThatThrownBy(() -> load(MINIMAL, "rollout.k.x=1")).hasMessageContaining("'rollout.k' is a value");
        assertThatThrownBy(() -> load(MINIMAL, "justakey")).hasMessageContaining("key.path=value");
    }

    @Test
    void taskOptionsBindOverTheirDefaults() {
        record Opts(int size, double wallProb) {}
        Opts o = ConfigLoader.bindOptions(Map.of("size", 6), new Opts(10, 0.2), "task.options.", "run.yaml");
        assertThat(o).isEqualTo(new Opts(6, 0.2));
        assertThatThrownBy(() ->
                        ConfigLoader.bindOptions(Map.of("siz", 6), new Opts(10, 0.2), "task.options.", "run.yaml"))
                .hasMessageContaining("unknown config key 'task.options.siz'");
    }
}

package org.pettingllms.envs.scienceworld;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.Task;
import org.pettingllms.testkit.TaskContract;

/**
 * ScienceWorld through its jar, against a stand-in jar compiled here whose PythonInterface has the methods, argument
 * and return types ScienceWorld's Python package calls: splits from its variations, rewards from its score, replayed
 * states that tree sampling can step from twice, refusals named by config key.
 */
class ScienceWorldTaskTest {
    @TempDir
    static Path dir;

    static Path jar;

    static final List<String> GOLD =
            List.of("pick up pot", "fill pot with water", "move pot to stove", "activate stove");

    @BeforeAll
    static void buildTheStandIn() throws IOException {
        Path src = dir.resolve("src/scienceworld/runtime/pythonapi/PythonInterface.java");
        Files.createDirectories(src.getParent());
        try (InputStream in =
                ScienceWorldTaskTest.class.getResourceAsStream("/scienceworld/PythonInterface.java.txt")) {
            Files.write(src, in.readAllBytes());
        }
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", classes.toString(), src.toString());
        assertThat(rc).isZero();
        jar = dir.resolve("scienceworld-fake.jar");
        try (OutputStream o = Files.newOutputStream(jar);
                JarOutputStream j = new JarOutputStream(o)) {
            String entry = "scienceworld/runtime/pythonapi/PythonInterface.class";
            j.putNextEntry(new JarEntry(entry));
            j.write(Files.readAllBytes(classes.resolve(entry)));
            j.closeEntry();
        }
    }

    static ScienceWorldTask task(List<String> roles) {
        return new ScienceWorldTask(roles, 6, ScienceWorldJar.loader(jar), List.of(), "easy");
    }

    @Test
    void splitsAreScienceWorldsOwnVariations() {
        ScienceWorldTask t = task(ScienceWorldTask.TEAM);
        assertThat(t.problems(1).problems(Split.TRAIN, 0, 6).stream().map(Problem::id))
                .containsExactlyInAnyOrder("boil#0", "boil#1", "boil#2", "boil#3", "boil#4", "boil#5");
        assertThat(t.problems(1).problems(Split.VALIDATION, 0, 2).stream().map(Problem::id))
                .containsExactlyInAnyOrder("boil#6", "boil#7");
        assertThat(t.problems(1).problems(Split.TEST, 0, 2).stream().map(Problem::id))
                .containsExactlyInAnyOrder("boil#8", "boil#9");
    }

    @Test
    void theGoldPathSolvesAndEachSubGoalIsPaidItsScore() {
        ScienceWorldTask t = task(ScienceWorldTask.TEAM);
        SwState s = t.initialState(t.problems(1).problems(Split.TEST, 0, 1).get(0));
        assertThat(s.description()).startsWith("Your task is to boil water in the kitchen ");
        assertThat(s.valid()).contains("pick up pot");
        double paid = 0;
        Transition<SwState> last = null;
        for (String a : GOLD) {
            // tree sampling steps K candidates from one state: the same action twice gives the same result
            Transition<SwState> once = t.step(s, ScienceWorldTask.ACTOR, Completion.ofText(a));
            Transition<SwState> twice = t.step(s, ScienceWorldTask.ACTOR, Completion.ofText(a));
            assertThat(twice.next()).isEqualTo(once.next());
            assertThat(once.reward().team()).isEqualTo(0.25);
            paid += once.reward().team();
            s = once.next();
            last = once;
        }
        assertThat(paid).isEqualTo(1.0);
        assertThat(last.done()).isTrue();
        assertThat(last.success()).isTrue();
        assertThat(last.outcome()).isEqualTo(StepOutcome.SOLVED);
    }

    @Test
    void anActionTheSimulatorDoesNotAdmitChangesNothingAndCostsTheActor() {
        ScienceWorldTask t = task(ScienceWorldTask.TEAM);
        SwState s = t.initialState(t.problems(1).problems(Split.TRAIN, 0, 1).get(0));
        Transition<SwState> bad = t.step(s, ScienceWorldTask.ACTOR, Completion.ofText("activate stove"));
        assertThat(bad.reward().local()).isEqualTo(-0.1);
        assertThat(bad.outcome()).isEqualTo(StepOutcome.INVALID_ACTION);
        assertThat(bad.next().actions()).isEqualTo(s.actions());
        Transition<SwState> plan = t.step(s, ScienceWorldTask.PLANNER, Completion.ofText("get the pot\nthen water"));
        assertThat(plan.next().subgoal()).isEqualTo("get the pot");
        assertThat(t.prompt(plan.next(), ScienceWorldTask.ACTOR, 0, org.pettingllms.core.data.PromptStyle.COMPACT)
                        .text())
                .contains("plan: get the pot")
                .contains("actions: look around | wait | pick up pot");
    }

    @Test
    void badConfigIsOneLineNamingTheKey() {
        assertThatThrownBy(() -> ScienceWorldJar.loader(dir.resolve("missing.jar")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.jar");
        assertThatThrownBy(() -> new ScienceWorldTask(
                        ScienceWorldTask.TEAM, 6, ScienceWorldJar.loader(jar), List.of("melt"), "easy"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.tasks")
                .hasMessageContaining("boil");
    }

    @Nested
    class Contract extends TaskContract<SwState> {
        @Override
        protected Task<SwState> task() {
            return ScienceWorldTaskTest.task(ScienceWorldTask.TEAM);
        }

        @Override
        protected List<Problem> problems() {
            return ScienceWorldTaskTest.task(ScienceWorldTask.TEAM).problems(1).problems(Split.TRAIN, 0, 6);
        }

        @Override
        protected TextPolicy policy() {
            TextPolicy gold = (ref, prompt, rng) -> {
                for (String a : GOLD) {
                    if (prompt.text().contains("| " + a)) {
                        return a;
                    }
                }
                return "think";
            };
            return halfRight(gold, (ref, prompt, rng) -> "wait");
        }
    }
}

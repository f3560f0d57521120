package org.pettingllms.envs.designed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.Demonstrations;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.workflow.DesignedSystem;
import org.pettingllms.core.workflow.RandomDesigns;
import org.pettingllms.core.workflow.WorkflowLimits;
import org.pettingllms.core.workflow.WorkflowParser;

/**
 * {@code design-mix}: two kinds of problems, kept apart by split; answers read from a box or a program's printed
 * line; the warm-up's designs all valid and blind to the kind, its scripted executor right at the rates it states.
 */
class DesignMixTaskTest {
    static final RunConfig.TaskSpec SPEC =
            new RunConfig.TaskSpec(DesignMixTasks.NAME, PromptStyle.COMPACT, 1, List.of(), Map.of());

    @Test
    void problemsAreHalfArithmeticHalfLettersAndTheSplitsShareNoQuestion() {
        Map<String, Integer> kinds = new HashMap<>();
        Set<String> train = new HashSet<>();
        var system = DesignedSystem.create(SPEC);
        var source = system.problems(1);
        for (Problem p : source.problems(Split.TRAIN, 0, 400)) {
            var item = DesignMixTasks.item(DesignMixTasks.Options.DEFAULT.kinds(), p.seed());
            kinds.merge(item.kind(), 1, Integer::sum);
            train.add(item.question());
        }
        assertThat(kinds.get("arithmetic")).isBetween(160, 240);
        assertThat(kinds.get("letters")).isBetween(160, 240);
        for (Problem p : source.problems(Split.VALIDATION, 0, 400)) {
            assertThat(train)
                    .doesNotContain(DesignMixTasks.item(List.of("arithmetic", "letters"), p.seed())
                            .question());
        }
    }

    @Test
    void aLetterQuestionNamesALetterOfItsWord() {
        for (long seed = 0; seed < 300; seed++) {
            LetterProblems.Letter l = LetterProblems.of(seed);
            assertThat(l.position()).isBetween(2, l.word().length() - 1);
            assertThat(l.answer()).isEqualTo(String.valueOf(l.word().charAt(l.position() - 1)));
            assertThat(l.question()).contains(LetterProblems.ordinal(l.position()) + " letter of \"" + l.word());
        }
        assertThat(LetterProblems.ordinal(2)).isEqualTo("2nd");
        assertThat(LetterProblems.ordinal(3)).isEqualTo("3rd");
        assertThat(LetterProblems.ordinal(11)).isEqualTo("11th");
        assertThat(LetterProblems.ordinal(21)).isEqualTo("21st");
    }

    @Test
    void theAnswerIsTheLastBoxElseTheFirstPrintedLine() {
        assertThat(DesignMixTasks.answerOf("x\n\\boxed{12}\nthen \\boxed{ 7 }")).isEqualTo("7");
        assertThat(DesignMixTasks.answerOf("```python\nprint(3)\n```\n\nOutput:\n\n 1234\nmore"))
                .isEqualTo("1234");
        assertThat(DesignMixTasks.answerOf("no answer 12")).isEmpty();
        var letters = new DesignMixTasks.MixItem("letters", "q", "k", 0);
        assertThat(DesignMixTasks.score(letters, "K")).isEqualTo(1);
        assertThat(DesignMixTasks.score(letters, "\"k\"")).isEqualTo(1);
        assertThat(DesignMixTasks.score(letters, "ka")).isZero();
        var sum = new DesignMixTasks.MixItem("arithmetic", "q", "1234", 0);
        assertThat(DesignMixTasks.score(sum, "1234")).isEqualTo(1);
        assertThat(DesignMixTasks.score(sum, "1243")).isZero();
        assertThat(DesignMixTasks.score(sum, "")).isZero();
    }

    @Test
    void randomDesignsAreValidAndEveryShapeIsDrawn() throws Exception {
        WorkflowParser parser = new WorkflowParser(WorkflowLimits.of(Set.of("solver"), Set.of("python")));
        Set<String> shapes = new HashSet<>();
        SplittableRandom rng = new SplittableRandom(3);
        for (int i = 0; i < 300; i++) {
            // the seven shapes, each with either answerer: tools aside, seven
            shapes.add(parser.parse(DesignMixTasks.DESIGNS.draw(rng)).shape().replace("+python", ""));
        }
        assertThat(shapes).hasSize(RandomDesigns.SHAPES);
    }

    @Test
    void theWarmUpShowsTheDesignerARandomDesignAndTheExecutorEveryCallOfIt() {
        var system = DesignedSystem.create(SPEC);
        List<Problem> ps = system.problems(1).problems(Split.TRAIN, 0, 200);
        var settings = new Demonstrations.Settings(0.5, 0.5);
        SplittableRandom rng = new SplittableRandom(7);
        Map<String, Map<String, Integer>> designsByKind = new HashMap<>();
        int directRight = 0;
        int direct = 0;
        for (Problem p : ps) {
            var item = DesignMixTasks.item(DesignMixTasks.Options.DEFAULT.kinds(), p.seed());
            List<Demonstrations.Demo> demos = system.demonstrations(p, PromptStyle.COMPACT, settings, rng);
            assertThat(demos.get(0).role()).isEqualTo("designer");
            assertThat(demos.get(0).prompt().text())
                    .startsWith("design\nroles: solver\ntools: python\n")
                    .contains(item.question());
            String design = demos.get(0).answer();
            designsByKind
                    .computeIfAbsent(item.kind(), k -> new HashMap<>())
                    .merge(design.lines().findFirst().orElseThrow().split(" ")[0], 1, Integer::sum);
            assertThat(demos.size()).isGreaterThan(1);
            for (Demonstrations.Demo d : demos.subList(1, demos.size())) {
                assertThat(d.role()).isEqualTo("solver");
                assertThat(d.prompt().text())
                        .startsWith("solver\n")
                        .contains(item.question())
                        .endsWith(">");
                if (item.kind().equals("letters")
                        && d.prompt().text().startsWith("solver\nAnswer directly.\nProblem")
                        && !d.prompt().text().contains("wrote:")) {
                    direct++;
                    directRight += DesignMixTasks.score(item, DesignMixTasks.answerOf(d.answer())) >= 1 ? 1 : 0;
                }
            }
        }
        // blind to the kind: each kind is shown each shape's top node
        assertThat(designsByKind.get("arithmetic").keySet())
                .containsAll(designsByKind.get("letters").keySet());
        assertThat(designsByKind.get("letters").keySet()).contains("ensemble", "route", "debate", "sequence", "agent");
        // a direct letter answer is right half the time at noise 0.5
        assertThat(direct).isGreaterThan(40);
        assertThat((double) directRight / direct).isBetween(0.35, 0.65);
    }

    @Test
    void optionsItDoesNotHaveAreOneLine() {
        assertThatThrownBy(() -> DesignedSystem.create(new RunConfig.TaskSpec(
                        DesignMixTasks.NAME, PromptStyle.COMPACT, 1, List.of(), Map.of("kinds", List.of("chess")))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.kinds");
        assertThatThrownBy(() -> DesignedSystem.create(new RunConfig.TaskSpec(
                        DesignMixTasks.NAME, PromptStyle.COMPACT, 1, List.of("solver", "critic"), Map.of())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.roles");
    }

    /** One problem's warm-up, printed, for a reader (not an assertion). */
    public static void main(String[] args) {
        var system = DesignedSystem.create(SPEC);
        SplittableRandom rng = new SplittableRandom(1);
        for (Problem p : system.problems(1).problems(Split.TRAIN, 0, 4)) {
            for (var d : system.demonstrations(p, PromptStyle.COMPACT, new Demonstrations.Settings(0.5, 0.5), rng)) {
                System.out.println("=== " + d.role() + "\n" + d.prompt().text() + d.answer());
            }
        }
    }
}

package org.pettingllms.core.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Designs a designer may write that must not run: malformed, unbounded, huge, or code. Each fails alone, before
 * anything runs, with one line naming where and what was expected.
 */
class HostileDesignsTest {
    static Stream<Arguments> designs() {
        StringBuilder deep = new StringBuilder();
        for (int level = 0; level < 6; level++) {
            deep.append("  ".repeat(level)).append("sequence\n");
        }
        deep.append("  ".repeat(6)).append("agent solver: A.\n");
        return Stream.of(
                Arguments.of("", "the design is empty: write one node a line (docs/WORKFLOWS.md)"),
                Arguments.of("# only a comment\n", "the design is empty: write one node a line (docs/WORKFLOWS.md)"),
                Arguments.of(
                        "import os\nos.system('rm -rf /')\n",
                        "line 1: 'import' is no node; nodes are agent, sequence, ensemble, debate, reflect, route"),
                Arguments.of(
                        "workflow = Workflow()\n",
                        "line 1: 'workflow' is no node; nodes are agent, sequence, ensemble, debate, reflect, route"),
                Arguments.of("agent solver:\n", "line 1: an agent needs an instruction after the colon"),
                Arguments.of(
                        "agent solver Go.\n",
                        "line 1: expected 'agent ROLE [TOOL, ...]: INSTRUCTION', got 'agent solver Go.'"),
                Arguments.of(
                        "agent hacker: Go.\n",
                        "line 1: no executor role 'hacker'; roles are critic, judge, router, solver"),
                Arguments.of(
                        "agent Solver: Go.\n",
                        "line 1: expected 'agent ROLE [TOOL, ...]: INSTRUCTION', got 'agent Solver: Go.'"),
                Arguments.of("agent solver [shell]: Go.\n", "line 1: no tool 'shell'; tools are python, sql"),
                Arguments.of("agent solver [python, python]: Go.\n", "line 1: the tool 'python' twice"),
                Arguments.of(
                        "agent solver: A.\nagent critic: B.\n",
                        "line 2: a second top node; a design is one node (put several steps under a sequence)"),
                Arguments.of("  agent solver: A.\n", "line 1: the first node must not be indented"),
                Arguments.of(
                        "sequence\n    agent solver: A.\n",
                        "line 2: indented more than one level under the line above"),
                Arguments.of("sequence\n agent solver: A.\n", "line 2: indented 1 spaces; indent two spaces a level"),
                Arguments.of("sequence\n\tagent solver: A.\n", "line 2: a tab; indent with two spaces a level"),
                Arguments.of("agent solver: A\u0000B.\n", "line 1: a control character (U+0000)"),
                Arguments.of("agent solver: A\rB.\n", "line 1: a control character (U+000D)"),
                Arguments.of("sequence\n", "line 1: a sequence needs its steps indented under it"),
                Arguments.of(
                        "sequence now\n  agent solver: A.\n", "line 1: 'sequence' takes nothing after it on its line"),
                Arguments.of(
                        "agent solver: A.\n  agent critic: B.\n", "line 2: nothing may be indented under an agent"),
                Arguments.of(
                        "ensemble 9 majority\n  agent solver: A.\n", "line 1: an ensemble's k must be 2 to 5, got 9"),
                Arguments.of(
                        "ensemble 1 majority\n  agent solver: A.\n", "line 1: an ensemble's k must be 2 to 5, got 1"),
                Arguments.of(
                        "ensemble 99999999999 majority\n  agent solver: A.\n",
                        "line 1: expected 'ensemble K majority, or ensemble K judge', got 'ensemble 99999999999"
                                + " majority'"),
                Arguments.of(
                        "ensemble 3 majority\n  agent solver: A.\n  agent solver: B.\n",
                        "line 1: ensemble K majority needs one node under it: the member run K times"),
                Arguments.of(
                        "ensemble 3 judge\n  agent solver: A.\n  sequence\n    agent judge: B.\n",
                        "line 3: an ensemble's judge must be an agent line"),
                Arguments.of("debate 2\n  agent solver: A.\n", "line 1: a debate needs 2 to 3 agents under it, got 1"),
                Arguments.of(
                        "debate 7\n  agent solver: A.\n  agent critic: B.\n",
                        "line 1: a debate's rounds must be 1 to 3, got 7"),
                Arguments.of(
                        "reflect\n  agent critic: A.\n  agent solver: B.\n",
                        "line 1: reflect reads the output before it: put it after a step of a sequence"),
                Arguments.of(
                        "sequence\n  reflect\n    agent critic: A.\n    agent solver: B.\n",
                        "line 2: reflect reads the output before it: put it after a step of a sequence"),
                Arguments.of(
                        "sequence\n  agent solver: A.\n  reflect\n    agent critic: B.\n",
                        "line 3: reflect needs two agents under it: the critic, then the reviser"),
                Arguments.of(
                        "route\n  agent router: Pick.\n  branch a\n    agent solver: A.\n",
                        "line 1: route needs the router agent, then two or more 'branch NAME' lines under it"),
                Arguments.of(
                        "route\n  agent router: Pick.\n  branch a\n    agent solver: A.\n  branch a\n"
                                + "    agent solver: B.\n",
                        "line 5: a second branch named 'a'"),
                Arguments.of(
                        "route\n  agent router: Pick.\n  branch a\n  branch b\n    agent solver: B.\n",
                        "line 3: a branch needs one node under it"),
                Arguments.of("branch a\n  agent solver: A.\n", "line 1: a branch belongs under a route"),
                Arguments.of(deep.toString(), "line 7: nested 7 deep; at most 6"),
                Arguments.of(
                        "agent solver: " + "x".repeat(301) + "\n",
                        "line 1: an instruction of 301 characters; at most 300"),
                Arguments.of("agent solver: A.\n".repeat(300), "the design has 5100 characters; at most 4000"),
                Arguments.of("sequence\n" + "  agent solver: A.\n".repeat(40), "the design has 41 lines; at most 40"),
                Arguments.of("sequence\n" + "  agent solver: A.\n".repeat(30), "the design has 31 nodes; at most 24"),
                Arguments.of(
                        "ensemble 5 majority\n  ensemble 5 majority\n    agent solver: A.\n",
                        "one execution would make up to 25 model calls; at most 12"),
                Arguments.of(
                        "sequence\n" + "  debate 3\n    agent solver: A.\n    agent critic: B.\n".repeat(3),
                        "one execution would make up to 18 model calls; at most 12"));
    }

    @ParameterizedTest
    @MethodSource("designs")
    void failsAloneWithOneLine(String design, String message) {
        WorkflowError e = catchThrowableOfType(WorkflowError.class, () -> WorkflowParserTest.parse(design));
        assertThat(e).as(design).isNotNull();
        assertThat(e.getMessage()).isEqualTo(message).doesNotContain("\n");
        assertThat(e.getStackTrace())
                .as("a verdict, not a crash: no stack trace is filled")
                .isEmpty();
    }
}

package org.pettingllms.core.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The workflow language: every node kind parses to its record, with its static call count and shape. */
class WorkflowParserTest {
    static final WorkflowLimits LIMITS =
            WorkflowLimits.of(Set.of("solver", "critic", "judge", "router"), Set.of("python", "sql"));
    static final WorkflowParser PARSER = new WorkflowParser(LIMITS);

    static Workflow parse(String design) throws WorkflowError {
        return PARSER.parse(design);
    }

    @Test
    void oneAgentIsAWorkflow() throws Exception {
        Workflow w = parse("agent solver: Solve the problem step by step.\n");
        assertThat(w.root())
                .isEqualTo(new Workflow.Agent(1, "solver", java.util.List.of(), "Solve the problem step by step."));
        assertThat(w.calls()).isEqualTo(1);
        assertThat(w.shape()).isEqualTo("agent");
    }

    @Test
    void everyNodeKindNestsAndCountsItsCalls() throws Exception {
        String design = """
                # a comment, then the design
                sequence
                  agent solver [python]: Write a program that prints the answer.
                  reflect
                    agent critic: Say what is wrong with the answer above.
                    agent solver: Write the answer again, corrected.
                  route
                    agent router: Is the answer above certain or in doubt?
                    branch certain
                      agent solver: Repeat the final answer.
                    branch doubt
                      ensemble 3 majority
                        agent solver [python, sql]: Solve it again.
                """;
        Workflow w = parse(design);
        Workflow.Sequence s = (Workflow.Sequence) w.root();
        assertThat(s.line()).isEqualTo(2);
        assertThat(s.steps()).hasSize(3);
        assertThat(((Workflow.Agent) s.steps().get(0)).tools()).containsExactly("python");
        Workflow.Route r = (Workflow.Route) s.steps().get(2);
        assertThat(r.branches()).extracting(Workflow.Branch::name).containsExactly("certain", "doubt");
        Workflow.Ensemble e = (Workflow.Ensemble) r.branches().get(1).node();
        assertThat(e.k()).isEqualTo(3);
        assertThat(e.judge()).isNull();
        assertThat(((Workflow.Agent) e.member()).tools()).containsExactly("python", "sql");
        // 1 + 2 + (1 router + max(1, 3)) = 7
        assertThat(w.calls()).isEqualTo(7);
        assertThat(w.shape())
                .isEqualTo("sequence[agent+python,reflect,route[agent,ensemble-majority(3)[agent+python+sql]]]");
    }

    @Test
    void aJudgedEnsembleAndADebate() throws Exception {
        Workflow judged = parse("""
                ensemble 4 judge
                  agent solver: Answer.
                  agent judge: Pick the best answer above and state it.
                """);
        assertThat(judged.calls()).isEqualTo(5);
        assertThat(((Workflow.Ensemble) judged.root()).judge().role()).isEqualTo("judge");
        Workflow debate = parse("""
                debate 3
                  agent solver: Argue for your answer.
                  agent critic: Argue against weak answers.
                """);
        assertThat(debate.calls()).isEqualTo(6);
        assertThat(debate.shape()).isEqualTo("debate(3x2)");
    }

    @Test
    void aDesignIsReadFromTheDesignersAnswer() {
        assertThat(WorkflowParser.designIn("<think>math needs a tool</think>\n```\nagent solver: Go.\n```\n"))
                .isEqualTo("agent solver: Go.\n");
        assertThat(WorkflowParser.designIn("<think>plan</think>\nagent solver: Go."))
                .isEqualTo("\nagent solver: Go.");
        assertThat(WorkflowParser.designIn("agent solver: Go.")).isEqualTo("agent solver: Go.");
    }

    @Test
    void windowsLineEndsAndBlankLinesAreFine() throws Exception {
        assertThat(parse("sequence\r\n\r\n  agent solver: A.\r\n  agent critic: B.\r\n")
                        .calls())
                .isEqualTo(2);
    }

    @Test
    void theLimitsAreTheConfiguredOnes() {
        assertThatThrownBy(() -> new WorkflowParser(LIMITS.withMaxCalls(4)).parse("""
                        ensemble 5 majority
                          agent solver: Answer.
                        """))
                .isInstanceOf(WorkflowError.class)
                .hasMessage("one execution would make up to 5 model calls; at most 4");
    }
}

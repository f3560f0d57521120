package org.pettingllms.core.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Execution: the calls in their order, each shown what its node's rules say it reads, votes counted, the router's
 * choice taken, tools run on the reply's code, and the same replies giving the same execution.
 */
class WorkflowRunnerTest {
    private static final Pattern BOXED = Pattern.compile("ANSWER (\\S+)");
    /** The answer the test task reads: the last {@code ANSWER x}. */
    static final Function<String, String> ANSWER = text -> {
        Matcher m = BOXED.matcher(text);
        String last = "";
        while (m.find()) {
            last = m.group(1);
        }
        return last;
    };

    /** Replies from a script, in call order; records every call. */
    static final class Script implements WorkflowRunner.Caller {
        final List<String> replies;
        final List<WorkflowRunner.Call> calls = new ArrayList<>();

        Script(String... replies) {
            this.replies = List.of(replies);
        }

        @Override
        public String reply(WorkflowRunner.Call call) {
            calls.add(call);
            return replies.get(calls.size() - 1);
        }
    }

    static WorkflowRunner runner() {
        WorkflowTool python = code -> "ran " + code.strip().length() + " chars: ANSWER " + code.strip();
        return new WorkflowRunner(Map.of("python", python, "sql", code -> "rows of " + code.strip()), ANSWER);
    }

    static WorkflowRunner.Execution run(String design, Script script) throws WorkflowError {
        return runner().run(WorkflowParserTest.parse(design), "What is 6 x 7?", script);
    }

    @Test
    void aSequencePassesEachOutputToTheNextStep() throws Exception {
        Script s = new Script("I think ANSWER 41", "It is 6 x 7, not 41", "ANSWER 42");
        var e = run("""
                sequence
                  agent solver: Solve it.
                  reflect
                    agent critic: Find the mistake.
                    agent solver: Fix it.
                """, s);
        assertThat(e.answer()).isEqualTo("42");
        assertThat(s.calls).extracting(WorkflowRunner.Call::role).containsExactly("solver", "critic", "solver");
        assertThat(s.calls.get(0).context()).isEmpty();
        assertThat(s.calls.get(1).context()).containsExactly(new WorkflowRunner.Message("solver", "I think ANSWER 41"));
        assertThat(s.calls.get(2).context())
                .containsExactly(
                        new WorkflowRunner.Message("solver", "I think ANSWER 41"),
                        new WorkflowRunner.Message("critic", "It is 6 x 7, not 41"));
        assertThat(s.calls.get(2).instruction()).isEqualTo("Fix it.");
        assertThat(s.calls.get(2).text())
                .isEqualTo("Problem:\nWhat is 6 x 7?\n\nsolver wrote:\nI think ANSWER 41\n\ncritic wrote:\nIt is 6 x 7,"
                        + " not 41\n");
        assertThat(e.steps()).extracting(st -> st.call().index()).containsExactly(0, 1, 2);
        assertThat(e.steps()).extracting(st -> st.call().line()).containsExactly(2, 4, 5);
    }

    @Test
    void aMajorityVoteTakesTheMostGivenAnswerAndTheEarliestOnATie() throws Exception {
        String design = "ensemble 5 majority\n  agent solver: Solve it.\n";
        var e = run(design, new Script("ANSWER 41", "no idea", "ANSWER 42", "ANSWER 42", "ANSWER 41 ANSWER 42"));
        assertThat(e.answer()).isEqualTo("42");
        assertThat(e.output()).isEqualTo("ANSWER 42");
        assertThat(e.notes()).containsExactly("ensemble (line 1): 3 of 5 answered 42");
        var tie = run(design, new Script("ANSWER 7", "ANSWER 8", "ANSWER 8", "ANSWER 7", "none"));
        assertThat(tie.answer()).isEqualTo("7");
        var none = run(design, new Script("a", "b", "c", "d", "e"));
        assertThat(none.answer()).isEmpty();
        assertThat(none.output()).isEqualTo("a");
        assertThat(none.notes()).containsExactly("ensemble (line 1): no answer to vote on; the first output stands");
    }

    @Test
    void aJudgeReadsEveryMembersAnswer() throws Exception {
        Script s = new Script("ANSWER 1", "ANSWER 2", "The second. ANSWER 2");
        var e = run("ensemble 2 judge\n  agent solver: Solve.\n  agent judge: Pick one.\n", s);
        assertThat(e.answer()).isEqualTo("2");
        assertThat(s.calls.get(2).context())
                .extracting(WorkflowRunner.Message::from)
                .containsExactly("answer 1", "answer 2");
    }

    @Test
    void debatersReadTheOthersLastAnswersFromTheSecondRound() throws Exception {
        Script s = new Script("ANSWER 41", "ANSWER 42", "still ANSWER 41", "ANSWER 42", "ANSWER 42", "ANSWER 42");
        var e = run("debate 3\n  agent solver: Argue.\n  agent critic: Argue back.\n", s);
        assertThat(s.calls).hasSize(6);
        assertThat(s.calls.get(0).context()).isEmpty();
        assertThat(s.calls.get(1).context()).isEmpty();
        assertThat(s.calls.get(2).context()).containsExactly(new WorkflowRunner.Message("critic", "ANSWER 42"));
        assertThat(s.calls.get(3).context()).containsExactly(new WorkflowRunner.Message("solver", "ANSWER 41"));
        assertThat(s.calls.get(4).context()).containsExactly(new WorkflowRunner.Message("critic", "ANSWER 42"));
        assertThat(e.answer()).isEqualTo("42");
    }

    @Test
    void theRouterNamesTheBranchThatRuns() throws Exception {
        String design = """
                route
                  agent router: Hard or easy?
                  branch easy
                    agent solver: Answer at once.
                  branch hard
                    ensemble 2 majority
                      agent solver: Think hard.
                """;
        Script hard = new Script("This is HARD, not easy.", "ANSWER 42", "ANSWER 42");
        var e = run(design, hard);
        assertThat(hard.calls.get(0).instruction())
                .isEqualTo("Hard or easy?\nBranches: easy, hard. Name the one to take.");
        assertThat(hard.calls).hasSize(3);
        assertThat(e.notes()).first().isEqualTo("route (line 1): 'hard'");
        Script neither = new Script("uneasy", "ANSWER 1");
        var n = run(design, neither);
        assertThat(n.notes()).containsExactly("route (line 1): the router named no branch; 'easy' ran");
        assertThat(neither.calls.get(1).instruction()).isEqualTo("Answer at once.");
        assertThat(WorkflowRunner.pick("take b-2 then", List.of("b", "b-2"))).isEqualTo(1);
    }

    @Test
    void aToolRunsTheRepliesLastCodeBlockAndItsOutputIsTheNextContext() throws Exception {
        Script s = new Script("```python\nfirst\n```\nthen\n```python\nprint(6*7)\n```", "ANSWER 42");
        var e = run("sequence\n  agent solver [python]: Compute.\n  agent critic: Check.\n", s);
        assertThat(e.steps().get(0).toolOutput()).isEqualTo("ran 10 chars: ANSWER print(6*7)");
        assertThat(s.calls.get(1).context().get(0).text()).endsWith("\n\nOutput:\nran 10 chars: ANSWER print(6*7)");
        Script tagged = new Script("```sql\nSELECT 1\n```");
        assertThat(run("agent solver [python, sql]: Look.\n", tagged).output()).endsWith("rows of SELECT 1");
        Script none = new Script("no code here");
        assertThat(run("agent solver [python]: Compute.\n", none).steps().get(0).toolOutput())
                .isEqualTo("(no code block to run)");
        assertThat(run("agent solver: Compute.\n", new Script("```python\nx\n```"))
                        .steps()
                        .get(0)
                        .toolOutput())
                .as("an agent without tools runs nothing")
                .isEmpty();
    }

    @Test
    void anExecutionMakesAsManyCallsAsTheDesignCounts() throws Exception {
        String design = "sequence\n  ensemble 3 majority\n    agent solver: A.\n  reflect\n    agent critic: B.\n"
                + "    agent solver: C.\n";
        String[] replies = {"ANSWER 1", "ANSWER 2", "ANSWER 2", "ok", "ANSWER 2"};
        assertThat(WorkflowParserTest.parse(design).calls())
                .isEqualTo(run(design, new Script(replies)).steps().size());
    }
}

package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.PlanningState;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.Shaping;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;

class PlanPathRulesTest {
    // A at (0,0), G at (2,2), walls at (0,2) and (1,2); shortest path 4 moves.
    static final String BOARD = "A.#\n..#\n..G";
    final PlanPathGame game = new PlanPathGame(PlanPathGame.Options.DEFAULT);
    final PathBoard board = game.fromText(BOARD);

    final PlanPathGame reference = new PlanPathGame(new PlanPathGame.Options(10, 10, 0.22, Shaping.REFERENCE));

    Game.Outcome<PathBoard> play(String moves) {
        return game.apply(board, Move.parse(moves).orElseThrow());
    }

    double playReference(String moves) {
        return reference
                .apply(reference.fromText(BOARD), Move.parse(moves).orElseThrow())
                .reward();
    }

    @Test
    void readsHandMadeBoards() {
        assertThat(board.shortest()).isEqualTo(4);
        assertThat(game.render(board)).isEqualTo(BOARD);
    }

    @Test
    void shortestPathEarnsTheGoalAndShortestBonus() {
        // per move: -0.01 + phi(next) - phi(cur), phi = -distance to G: each of DDRR is -0.01 + 1 = 0.99;
        // goal +1.0, 4 moves == shortest +0.5 -> 3.96 + 1.5 = 5.46
        var out = play("DDRR");
        assertThat(out.reward()).isCloseTo(5.46, within(1e-9));
        assertThat(out.success()).isTrue();
        assertThat(out.done()).isTrue();
        // the reference: -0.01 + 0.99*phi(next) - phi(cur)
        // D: (0,0)d4 -> (1,0)d3: -0.01 - 2.97 + 4 = 1.02
        // D: -> (2,0)d2: -0.01 - 1.98 + 3 = 1.01
        // R: -> (2,1)d1: -0.01 - 0.99 + 2 = 1.00
        // R: -> (2,2)d0: -0.01 + 0 + 1 = 0.99, goal +1.0, 4 moves == shortest +0.5 -> 2.49
        assertThat(playReference("DDRR")).isCloseTo(1.02 + 1.01 + 1.00 + 2.49, within(1e-9));
    }

    @Test
    void movesAfterTheGoalAreIgnored() {
        var out = play("DDRRUUL");
        assertThat(out.reward()).isCloseTo(5.46, within(1e-9));
        assertThat(out.board().pos()).isEqualTo(8);
        assertThat(out.board().moves()).isEqualTo(4);
    }

    @Test
    void aDetourReachesTheGoalWithoutTheShortestBonus() {
        // 6 valid moves -0.06, shaping phi(G) - phi(A) = 4, goal +1.0, no bonus
        assertThat(play("DUDDRR").reward()).isCloseTo(4.94, within(1e-9));
        // the reference: D 1.02, U (1,0)->(0,0): -0.01 - 3.96 + 3 = -0.97, D 1.02, D 1.01, R 1.00, R 0.99 + 1.0
        assertThat(playReference("DUDDRR")).isCloseTo(1.02 - 0.97 + 1.02 + 1.01 + 1.00 + 1.99, within(1e-9));
    }

    @Test
    void wallsAndEdgesAreInvalidAndTheAgentStays() {
        // R: (0,1)d3: 0.99; R into the wall: -0.10 + 0
        var out = play("RR");
        assertThat(out.reward()).isCloseTo(0.89, within(1e-9));
        assertThat(out.board().pos()).isEqualTo(1);
        assertThat(out.anyInvalid()).isTrue();
        assertThat(out.summary()).isEqualTo("end 0,1 | invalid #2 | goal no");
        assertThat(play("U").reward()).isCloseTo(-0.10, within(1e-9));
        // the reference: R 1.02; R into the wall: -0.10 + 0.99*(-3) + 3 = -0.07; U off the grid: -0.10 + 0.04
        assertThat(playReference("RR")).isCloseTo(0.95, within(1e-9));
        assertThat(playReference("U")).isCloseTo(-0.06, within(1e-9));
    }

    @Test
    void chatAnswersAndCompactAnswersMeanTheSameMoves() {
        assertThat(Move.parse("I will go down.\n**Actions List**: [\"D\", \"down\", 'R', right]"))
                .contains(List.of(Move.D, Move.D, Move.R, Move.R));
        assertThat(Move.parse("D D, R R\nblah")).contains(List.of(Move.D, Move.D, Move.R, Move.R));
        assertThat(Move.parse("go somewhere")).isEmpty();
        assertThat(Move.parse("**Actions List**: [\"D\", \"jump\"]")).isEmpty();
    }

    @Test
    void toolProposalIsSimulatedAndShownToThePlanRole() {
        var task = new PlanningTask<>(game, List.of("tool", "plan"), 4);
        var start = PlanningState.start(board);
        Transition<PlanningState<PathBoard>> tool = task.step(start, "tool", Completion.ofText("DDRR"));
        assertThat(tool.reward().local()).isCloseTo(5.46, within(1e-9));
        assertThat(tool.reward().team()).isZero();
        assertThat(tool.done()).isFalse();
        assertThat(tool.next().board()).as("simulation leaves the real board").isEqualTo(board);
        String planPrompt =
                task.prompt(tool.next(), "plan", 0, PromptStyle.COMPACT).text();
        assertThat(planPrompt).isEqualTo("plan-path-v1 plan\n" + BOARD + "\ntool: DDRR -> end 2,2 | goal yes\n>");

        Transition<PlanningState<PathBoard>> plan = task.step(tool.next(), "plan", Completion.ofText("DDRR"));
        assertThat(plan.reward().local()).isCloseTo(5.46, within(1e-9));
        assertThat(plan.reward().team()).isCloseTo(5.46, within(1e-9));
        assertThat(plan.done()).isTrue();
        assertThat(plan.success()).isTrue();
        assertThat(plan.outcome()).isEqualTo(StepOutcome.SOLVED);
    }

    @Test
    void unparseableAnswersCostOneAndChangeNothing() {
        var task = new PlanningTask<>(game, List.of("tool", "plan"), 4);
        var start = PlanningState.start(board);
        var plan = task.step(start, "plan", Completion.ofText("I think we should go to the goal"));
        assertThat(plan.outcome()).isEqualTo(StepOutcome.UNPARSEABLE);
        assertThat(plan.reward().local()).isEqualTo(-1.0);
        assertThat(plan.next().board()).isEqualTo(board);
        var tool = task.step(start, "tool", Completion.ofText(""));
        assertThat(tool.reward().local()).isEqualTo(-1.0);
        assertThat(tool.reward().team()).isZero();
    }

    @Test
    void chatPromptsExplainTheRulesAndTheAnswerFormatAndShowTheProposal() {
        var task = new PlanningTask<>(game, List.of("tool", "plan"), 4);
        var afterTool =
                task.step(PlanningState.start(board), "tool", Completion.ofText("**Actions List**: [\"D\", \"D\"]"));
        var prompt = task.prompt(afterTool.next(), "plan", 0, PromptStyle.CHAT);
        assertThat(prompt.messages()).hasSize(2);
        assertThat(prompt.messages().get(1).content())
                .contains("You are the planning agent")
                .contains("Current board (turn 1):\n" + BOARD)
                .contains("Tool agent's proposal: DD")
                .contains("Simulated result: end 2,0 | goal no")
                .contains("**Actions List**");
        var single = new PlanningTask<>(game, List.of("plan"), 4);
        assertThat(single.prompt(PlanningState.start(board), "plan", 0, PromptStyle.CHAT)
                        .text())
                .contains("Solve the puzzle below")
                .doesNotContain("tool agent");
    }
}

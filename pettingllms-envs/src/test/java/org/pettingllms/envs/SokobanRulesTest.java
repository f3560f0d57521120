package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.Shaping;
import org.pettingllms.envs.sokoban.SokobanBoard;
import org.pettingllms.envs.sokoban.SokobanGame;

class SokobanRulesTest {
    final SokobanGame game = new SokobanGame(SokobanGame.Options.DEFAULT);
    final SokobanGame reference =
            new SokobanGame(new SokobanGame.Options(6, 6, 1, 25, 0.35, 2, 200, Shaping.REFERENCE));

    double reward(SokobanGame g, String board, String moves) {
        return g.apply(g.fromText(board), Move.parse(moves).orElseThrow()).reward();
    }

    @Test
    void pushingTheLastBoxOntoItsGoalSolves() {
        var out =
                game.apply(game.fromText("#####\n#@$.#\n#####"), Move.parse("R").orElseThrow());
        // valid -0.01, box onto goal +1.0, shaping 0.1*(0 - (-1)) = 0.1, all boxes on goals +10
        assertThat(out.reward()).isCloseTo(11.09, within(1e-9));
        // the reference's shaping 0.1*(0.99*0 - (-1)) is the same at phi' = 0
        assertThat(reward(reference, "#####\n#@$.#\n#####", "R")).isCloseTo(11.09, within(1e-9));
        assertThat(out.success()).isTrue();
        assertThat(game.render(out.board())).isEqualTo("#####\n# @*#\n#####");
    }

    @Test
    void wallsAndBlockedBoxesAreInvalid() {
        // into a wall: -0.05, shaping 0.1*(-1 + 1) = 0; the reference's 0.1*(0.99*(-1) + 1) = 0.001
        assertThat(reward(game, "#####\n#@$.#\n#####", "L")).isCloseTo(-0.05, within(1e-9));
        assertThat(reward(reference, "#####\n#@$.#\n#####", "L")).isCloseTo(-0.049, within(1e-9));
        // box into box: phi = -(2 + 1) = -3 before and after: -0.05
        SokobanBoard two = game.fromText("######\n#@$$.#\n#   .#\n######");
        var out = game.apply(two, Move.parse("R").orElseThrow());
        assertThat(out.board()).isEqualTo(new SokobanBoard(4, 6, two.layout(), two.player(), two.boxes(), 1, false));
        assertThat(out.anyInvalid()).isTrue();
        assertThat(out.reward()).isCloseTo(-0.05, within(1e-9));
        // the reference: -0.05 + 0.1*(0.99*(-3) + 3) = -0.047
        assertThat(reward(reference, "######\n#@$$.#\n#   .#\n######", "R")).isCloseTo(-0.047, within(1e-9));
    }

    @Test
    void boxOffAGoalCostsWhatPushingItOnPaid() {
        // boxes at (1,2) on a goal and (2,4); goals (1,2), (1,5). phi before -(0 + 2) = -2; after: box (1,3) is 1
        // from a goal -> phi = -3. Reward: -0.01 - 1.0 + 0.1*(-3 + 2) = -1.11
        String board = "#######\n#@*  .#\n#   $ #\n#######";
        assertThat(reward(game, board, "R")).isCloseTo(-1.11, within(1e-9));
        // the reference's -0.5 off a goal: -0.01 - 0.5 + 0.1*(0.99*(-3) + 2) = -0.607
        assertThat(reward(reference, board, "R")).isCloseTo(-0.607, within(1e-9));
    }

    @Test
    void pushingABoxOffItsGoalAndBackEarnsOnlyUnderTheReferenceRules() {
        // goals (2,2) (under the box) and (3,5); the other box (3,3) is 2 from either. R pushes the box off to
        // (2,3), U R R D walk round it, L pushes it back: six valid moves, the same boxes as at the start.
        String board = "#######\n#     #\n#@*   #\n#  $ .#\n#######";
        // telescoping: -0.06 for the moves, -1 + 1 for the goal, shaping 0.1*(phi_end - phi_start) = 0
        assertThat(reward(game, board, "RURRDL")).isCloseTo(-0.06, within(1e-9));
        // reference: -0.06 - 0.5 + 1.0; phi -2 -> -3 (R), -3 (URRD), -2 (L): 0.1*(-0.97 + 4*0.03 + 1.02) = 0.017
        assertThat(reward(reference, board, "RURRDL")).isCloseTo(0.457, within(1e-9));
    }

    @Test
    void theStepCapEndsTheEpisodeWithMinusFive() {
        SokobanGame capped = new SokobanGame(new SokobanGame.Options(6, 6, 1, 25, 0.35, 2, 3));
        var out = capped.apply(
                capped.fromText("#####\n#@$.#\n#####"), Move.parse("LLLL").orElseThrow());
        // three invalid moves of -0.05, then the cap: -5; the fourth move is ignored
        assertThat(out.reward()).isCloseTo(3 * -0.05 - 5, within(1e-9));
        assertThat(out.done()).isTrue();
        assertThat(out.success()).isFalse();
        assertThat(out.board().moves()).isEqualTo(3);
    }

    @Test
    void symbolsRoundTrip() {
        String text = "######\n#+*  #\n# $. #\n######";
        assertThat(game.render(game.fromText(text))).isEqualTo(text);
    }
}

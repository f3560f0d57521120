package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.sokoban.SokobanBoard;
import org.pettingllms.envs.sokoban.SokobanGame;

class SokobanRulesTest {
    final SokobanGame game = new SokobanGame(SokobanGame.Options.DEFAULT);

    double reward(SokobanGame g, String board, String moves) {
        return g.apply(g.fromText(board), Move.parse(moves).orElseThrow()).reward();
    }

    @Test
    void pushingTheLastBoxOntoItsGoalSolves() {
        var out = game.apply(game.fromText("#####\n#@$.#\n#####"), Move.parse("R").orElseThrow());
        // valid -0.01, box onto goal +1.0, shaping 0.1*(0.99*0 - (-1)) = 0.1, all boxes on goals +10
        assertThat(out.reward()).isCloseTo(11.09, within(1e-9));
        assertThat(out.success()).isTrue();
        assertThat(game.render(out.board())).isEqualTo("#####\n# @*#\n#####");
    }

    @Test
    void wallsAndBlockedBoxesAreInvalid() {
        // into a wall: -0.05 + 0.1*(0.99*(-1) + 1) = -0.049
        assertThat(reward(game, "#####\n#@$.#\n#####", "L")).isCloseTo(-0.049, within(1e-9));
        // box into box: phi = -(2 + 1) = -3: -0.05 + 0.1*(0.99*(-3) + 3) = -0.047
        SokobanBoard two = game.fromText("######\n#@$$.#\n#   .#\n######");
        var out = game.apply(two, Move.parse("R").orElseThrow());
        assertThat(out.board()).isEqualTo(new SokobanBoard(4, 6, two.layout(), two.player(), two.boxes(), 1, false));
        assertThat(out.anyInvalid()).isTrue();
        assertThat(out.reward()).isCloseTo(-0.047, within(1e-9));
    }

    @Test
    void boxOffAGoalCostsHalf() {
        // boxes at (1,2) on a goal and (2,4); goals (1,2), (1,5). phi before -(0 + 2) = -2; after: box (1,3) is 1
        // from a goal -> phi = -3. Reward: -0.01 - 0.5 + 0.1*(0.99*(-3) + 2) = -0.607
        assertThat(reward(game, "#######\n#@*  .#\n#   $ #\n#######", "R")).isCloseTo(-0.607, within(1e-9));
    }

    @Test
    void theStepCapEndsTheEpisodeWithMinusFive() {
        SokobanGame capped = new SokobanGame(new SokobanGame.Options(6, 6, 1, 25, 0.35, 2, 3));
        var out = capped.apply(capped.fromText("#####\n#@$.#\n#####"), Move.parse("LLLL").orElseThrow());
        // three invalid moves of -0.049, then the cap: -5; the fourth move is ignored
        assertThat(out.reward()).isCloseTo(3 * -0.049 - 5, within(1e-9));
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

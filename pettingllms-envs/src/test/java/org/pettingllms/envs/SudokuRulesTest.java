package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.envs.sudoku.Fill;
import org.pettingllms.envs.sudoku.SudokuBoard;
import org.pettingllms.envs.sudoku.SudokuGame;

class SudokuRulesTest {
    // solution: 1234 / 3412 / 2143 / 4321
    static final String CLUES = "12..\n34..\n....\n....";
    final SudokuGame game = new SudokuGame(SudokuGame.Options.DEFAULT);
    final SudokuBoard board = game.fromText(CLUES);

    SudokuGame.Outcome<SudokuBoard> play(String answer) {
        return game.apply(board, game.parse(answer).orElseThrow());
    }

    @Test
    void fillsEarnProgressAndCompletedUnits() {
        // one cell: 0.5 * 1/16 = 0.03125
        assertThat(play("(0,2,3)").reward()).isCloseTo(0.03125, within(1e-12));
        // two cells complete row 0: 0.5 * 2/16 + 0.02 * 1 = 0.0825
        assertThat(play("(0,2,3) (0,3,4)").reward()).isCloseTo(0.0825, within(1e-12));
    }

    @Test
    void fromTheSecondTurnTheBoardSaysWhichDigitsAreFills() {
        assertThat(game.render(board))
                .as("the first turn: clues only, no fills line")
                .isEqualTo(CLUES);
        SudokuBoard after = play("(0,2,3) (2,0,2)").board();
        assertThat(game.render(after)).isEqualTo("123.\n34..\n2...\n....\nfills: 0,2=3 2,0=2");
        SudokuBoard back = game.fromText(game.render(after));
        assertThat(back).isEqualTo(after);
        assertThat(back.clue(0, 2)).as("a fill is not a clue").isZero();
        // overwriting an earlier fill is allowed, overwriting a clue is not
        assertThat(game.apply(after, game.parse("(0,2,4)").orElseThrow()).anyInvalid())
                .isFalse();
        assertThat(game.apply(after, game.parse("(0,0,4)").orElseThrow()).anyInvalid())
                .isTrue();
    }

    @Test
    void cluesCannotBeOverwrittenAndValuesMustBeInRange() {
        var over = play("(0,0,2)");
        assertThat(over.reward()).isCloseTo(-1.0, within(1e-12));
        assertThat(over.board().grid()).isEqualTo(board.grid());
        assertThat(over.anyInvalid()).isTrue();
        assertThat(play("(0,0,1)").reward()).as("restating a clue is harmless").isZero();
        assertThat(play("(0,2,5)").reward()).isCloseTo(-1.0, within(1e-12));
        assertThat(play("(4,0,1)").reward()).isCloseTo(-1.0, within(1e-12));
    }

    @Test
    void aConflictingGridCostsHalf() {
        // (0,2,1) repeats 1 in row 0: 0.03125 - 0.5
        assertThat(play("(0,2,1)").reward()).isCloseTo(-0.46875, within(1e-12));
    }

    @Test
    void aFullGridAnswerSolves() {
        var out = play("1234341221434321");
        // 12 cells: 0.5 * 12/16 = 0.375; units 1 -> 12 (box 0 was complete from the clues): 0.02 * 11 = 0.22;
        // solved +2
        assertThat(out.reward()).isCloseTo(2.595, within(1e-12));
        assertThat(out.success()).isTrue();
        assertThat(game.parse("1234 3412 2143 4321")).isEqualTo(game.parse("1234341221434321"));
    }

    @Test
    void solvedRequiresTheCluesToBeKept() {
        // reference defect 7: a complete valid grid that lost a clue is NOT solved
        SudokuBoard relabelled = new SudokuBoard(4, "1000000000000000", "2134342112434312");
        assertThat(relabelled.satisfiedUnits()).isEqualTo(12);
        assertThat(relabelled.filled()).isEqualTo(16);
        assertThat(relabelled.solved()).isFalse();
        assertThat(new SudokuBoard(4, "2000000000000000", "2134342112434312").solved())
                .isTrue();
    }

    @Test
    void compactAnswersAreGridsThatLineUpWithTheBoard() {
        var fills = game.solve(board).orElseThrow();
        String compact = game.format(fills, PromptStyle.COMPACT);
        assertThat(compact).isEqualTo("..34/..12/2143/4321");
        assertThat(game.parse(compact)).contains(fills);
        assertThat(game.apply(board, game.parse(compact).orElseThrow()).success())
                .isTrue();
        assertThat(game.format(fills.subList(0, 3), PromptStyle.COMPACT))
                .as("a truncated answer leaves the rest empty")
                .isEqualTo("..34/..1./..../....");
        var offBoard = List.of(new Fill(4, 0, 1));
        assertThat(game.format(offBoard, PromptStyle.COMPACT))
                .as("what a grid cannot show stays a list")
                .isEqualTo("(4,0,1)");
        assertThat(game.format(fills.subList(0, 2), PromptStyle.CHAT)).isEqualTo("**Actions List**: [(0,2,3) (0,3,4)]");
    }

    @Test
    void malformedAnswersAreUnparseable() {
        assertThat(game.parse("12345")).isEmpty();
        assertThat(game.parse("no idea")).isEmpty();
        assertThat(game.parse("**Actions List**: []")).isEmpty();
        assertThat(game.parse("**Actions List**: [(0, 2, 3), (1,2,1)]"))
                .hasValueSatisfying(f -> assertThat(f).hasSize(2));
    }
}

package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.Move;
import org.pettingllms.envs.planning.Shaping;
import org.pettingllms.envs.planpath.PathBoard;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanGame;

/**
 * The rewards can't be gamed: on every board a shortest successful answer earns at least as much as any other
 * answer (random walks, detours that still reach the goal, answers split over turns), and strictly more than
 * any longer successful one. The reference's shaping ({@code shaping: reference}) fails this: it pays loops.
 */
class ShapingPropertyTest {
    static final int BOARDS = 400;
    static final int ANSWERS = 40;

    @Test
    void onEveryPlanPathBoardAShortestAnswerEarnsTheMost() {
        for (var options : List.of(
                PlanPathGame.Options.DEFAULT,
                new PlanPathGame.Options(6, 6, 0.3),
                new PlanPathGame.Options(16, 16, 0.2))) {
            PlanPathGame game = new PlanPathGame(options);
            checkShortestEarnsTheMost(game, 20_000, 20);
        }
    }

    @Test
    void onEverySokobanBoardAShortestAnswerEarnsTheMost() {
        checkShortestEarnsTheMost(new SokobanGame(SokobanGame.Options.DEFAULT), 30_000, 12);
        checkShortestEarnsTheMost(new SokobanGame(new SokobanGame.Options(7, 7, 2, 30, 0.35, 2, 200)), 40_000, 14);
    }

    /** Random answers, detours (a random prefix, then a shortest answer from where it ends) and two-turn splits. */
    static <B> void checkShortestEarnsTheMost(Game<B, List<Move>> game, long seed0, int span) {
        SplittableRandom rng = new SplittableRandom(seed0);
        int boards = game instanceof SokobanGame ? BOARDS / 4 : BOARDS;
        int detours = 0;
        for (int i = 0; i < boards; i++) {
            B board = game.generate(seed0 + i);
            List<Move> shortest = game.solve(board).orElseThrow();
            var best = game.apply(board, shortest);
            assertThat(best.success()).isTrue();
            for (int k = 0; k < ANSWERS; k++) {
                List<Move> prefix = Move.random(rng, 1 + rng.nextInt(span));
                var walked = game.apply(board, prefix);
                assertThat(best.reward())
                        .as("board %d, answer %s", seed0 + i, prefix)
                        .isGreaterThanOrEqualTo(walked.reward() - 1e-9);
                if (walked.done()) {
                    continue;
                }
                var rest = game.solve(walked.board());
                if (rest.isEmpty()) {
                    continue; // a box pushed into a corner: no success from here
                }
                List<Move> detour = new ArrayList<>(prefix);
                detour.addAll(rest.get());
                var out = game.apply(board, detour);
                assertThat(out.success()).isTrue();
                // the same answer given over two turns earns the same: the episode's return is what counts
                double split =
                        walked.reward() + game.apply(walked.board(), rest.get()).reward();
                assertThat(split).isCloseTo(out.reward(), Assertions.within(1e-9));
                if (detour.size() > shortest.size()) {
                    detours++;
                    assertThat(out.reward())
                            .as("board %d, detour %s vs shortest %s", seed0 + i, detour, shortest)
                            .isLessThan(best.reward());
                } else {
                    assertThat(out.reward()).isLessThanOrEqualTo(best.reward() + 1e-9);
                }
            }
        }
        assertThat(detours).as("detours checked").isGreaterThan(boards);
    }

    @Test
    void theReferenceShapingPaysForLoopsOnLargeBoards() {
        // Back and forth to a free neighbour six times, then a shortest path: under the reference each loop at
        // distance d earns about 0.02 d, more than the lost shortest bonus (0.5) once d is large.
        int found = 0;
        for (Shaping shaping : Shaping.values()) {
            PlanPathGame game = new PlanPathGame(new PlanPathGame.Options(16, 16, 0.2, shaping));
            for (int i = 0; i < 200; i++) {
                PathBoard board = game.generate(7_000 + i);
                List<Move> shortest = game.solve(board).orElseThrow();
                if (board.shortest() < 15 || distance(board) < 15) {
                    continue;
                }
                List<Move> loops = new ArrayList<>();
                Move out = shortest.get(0);
                for (int k = 0; k < 6; k++) {
                    loops.add(out);
                    loops.add(opposite(out));
                }
                loops.addAll(shortest);
                double gain = game.apply(board, loops).reward()
                        - game.apply(board, shortest).reward();
                if (shaping == Shaping.REFERENCE) {
                    assertThat(gain).as("board %d", 7_000 + i).isPositive();
                    found++;
                } else {
                    assertThat(gain).as("board %d", 7_000 + i).isCloseTo(-0.12 - 0.5, Assertions.within(1e-9));
                }
            }
        }
        assertThat(found).isGreaterThan(5);
    }

    private static int distance(PathBoard b) {
        return Math.abs(b.row(b.pos()) - b.row(b.goal())) + Math.abs(b.col(b.pos()) - b.col(b.goal()));
    }

    private static Move opposite(Move m) {
        return switch (m) {
            case U -> Move.D;
            case D -> Move.U;
            case L -> Move.R;
            case R -> Move.L;
        };
    }
}

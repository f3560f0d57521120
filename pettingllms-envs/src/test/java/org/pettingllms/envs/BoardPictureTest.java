package org.pettingllms.envs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Image;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.task.ProblemSource.Split;
import org.pettingllms.core.task.SeededProblems;
import org.pettingllms.core.task.Tasks;
import org.pettingllms.envs.planning.BoardPicture;
import org.pettingllms.envs.planning.Game;
import org.pettingllms.envs.planning.PlanningState;
import org.pettingllms.envs.planning.PlanningTask;
import org.pettingllms.envs.planning.SolverPolicy;
import org.pettingllms.envs.planpath.PlanPathGame;
import org.pettingllms.envs.sokoban.SokobanGame;

/** Boards shown as pictures: drawn exactly, read back exactly, and shown in no prompt as text. */
class BoardPictureTest {
    @SuppressWarnings({"unchecked", "rawtypes"})
    static final List<Game<Object, Object>> GAMES = List.of(
            (Game) new PlanPathGame(PlanPathGame.Options.DEFAULT), (Game) new SokobanGame(SokobanGame.Options.DEFAULT));

    @Test
    void everyBoardReadsBackFromItsPictureOneCellPerTwentyEightPixels() throws Exception {
        for (Game<Object, Object> game : GAMES) {
            for (long seed = 1; seed <= 40; seed++) {
                String text = game.render(game.generate(seed));
                Image picture = BoardPicture.draw(text, game.colours(), game.id());
                assertThat(BoardPicture.read(picture, game.colours()))
                        .as(game.id() + " " + seed)
                        .hasValue(text);
                BufferedImage img = ImageIO.read(new ByteArrayInputStream(picture.bytes()));
                List<String> rows = text.lines().toList();
                assertThat(img.getWidth()).isEqualTo(rows.get(0).length() * 28);
                assertThat(img.getHeight()).isEqualTo(rows.size() * 28);
                // the same board is the same picture, byte for byte (prompts with it are shared)
                assertThat(BoardPicture.draw(text, game.colours(), game.id())).isEqualTo(picture);
            }
        }
        assertThatThrownBy(() -> BoardPicture.draw("x", Map.of('.', 0), "g")).hasMessageContaining("'x'");
        assertThat(BoardPicture.read(Image.png(new byte[] {1}), Map.of())).isEmpty();
    }

    @Test
    void thePromptsShowThePictureAndNoRowOfTheBoard() {
        for (Game<Object, Object> game : GAMES) {
            PlanningTask<Object, Object> task = new PlanningTask<>(
                    game, List.of("tool", "plan"), 2, PlanningTask.ToolMode.ANSWER, null, PlanningTask.View.IMAGE);
            for (Problem p : new SeededProblems(game.id(), 100).problems(Split.TRAIN, 0, 10)) {
                PlanningState<Object> s = task.initialState(p);
                String board = game.render(s.board());
                for (PromptStyle style : PromptStyle.values()) {
                    for (String role : task.roles()) {
                        Prompt prompt = task.prompt(s, role, 0, style);
                        assertThat(prompt.images()).hasSize(1);
                        assertThat(BoardPicture.read(prompt.images().get(0), game.colours()))
                                .hasValue(board);
                        for (String row : board.lines().toList()) {
                            if (row.length() > 3) {
                                assertThat(prompt.text())
                                        .as(game.id() + " " + role)
                                        .doesNotContain(row);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aSolverThatReadsThePictureSolvesAsItDoesFromTheRows() {
        for (Game<Object, Object> game : GAMES) {
            SolverPolicy<Object, Object> solver = new SolverPolicy<>(game, 1.0);
            int[] solved = new int[2];
            for (PlanningTask.View view : PlanningTask.View.values()) {
                PlanningTask<Object, Object> task =
                        new PlanningTask<>(game, List.of("plan"), 1, PlanningTask.ToolMode.ANSWER, null, view);
                for (Problem p : new SeededProblems(game.id(), 100).problems(Split.TEST, 0, 20)) {
                    PlanningState<Object> s = task.initialState(p);
                    String answer = solver.answer(
                            PolicyRef.of("m"), task.prompt(s, "plan", 0, PromptStyle.COMPACT), new SplittableRandom(1));
                    if (task.step(s, "plan", Completion.ofText(answer)).success()) {
                        solved[view.ordinal()]++;
                    }
                }
            }
            assertThat(solved[1]).as(game.id()).isEqualTo(solved[0]).isGreaterThan(10);
        }
    }

    @Test
    void aGameWithoutAPictureRefusesTheImageViewByItsKey() {
        assertThatThrownBy(() -> Tasks.create(
                        new RunConfig.TaskSpec("sudoku", PromptStyle.COMPACT, 2, List.of(), Map.of("view", "image"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("task.options.view");
        assertThatThrownBy(() -> Tasks.create(new RunConfig.TaskSpec(
                        "plan-path", PromptStyle.COMPACT, 2, List.of(), Map.of("view", "photo"))))
                .hasMessageContaining("expected text or image");
    }
}

package org.pettingllms.envs.planning;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.pettingllms.core.data.PromptStyle;

/** What the grid games whose actions are move lists (Plan-Path, Sokoban) share: parsing and writing answers. */
public abstract class MoveGame<B> implements Game<B, List<Move>> {
    /** Rows plus columns of a board: the length scale of random answers. */
    protected abstract int span(B board);

    @Override
    public Optional<List<Move>> parse(String answer) {
        return Move.parse(answer);
    }

    @Override
    public String format(List<Move> action, PromptStyle style) {
        return style == PromptStyle.CHAT ? Move.chat(action) : Move.compact(action);
    }

    @Override
    public List<Move> randomAction(B board, SplittableRandom rng) {
        return Move.random(rng, 1 + rng.nextInt(span(board)));
    }

    @Override
    public List<Move> truncate(List<Move> action, int keep) {
        return List.copyOf(action.subList(0, Math.min(keep, action.size())));
    }

    @Override
    public int length(List<Move> action) {
        return action.size();
    }

    @Override
    public String answerFormat() {
        return Move.CHAT_ANSWER_FORMAT;
    }
}

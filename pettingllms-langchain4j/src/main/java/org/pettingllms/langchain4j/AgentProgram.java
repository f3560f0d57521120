package org.pettingllms.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import org.pettingllms.core.data.Problem;

/**
 * A multi-agent program written with LangChain4j: it plays one problem, calling each role's {@link ChatModel} (or
 * its streaming form, or AI services built on either, tools included) as often as it likes, and says how well it
 * did. The trainer gives it models backed by the run's policies and
 * records every call as a turn of that role.
 *
 * <p>For AT-GRPO's per-call groups the trainer replays the program: it runs it again from the start, answering its
 * first calls with the recorded answers, to sample several answers to the same later call. A program must
 * therefore do the same thing given the same answers: seeded randomness only, no clock, no state kept between
 * runs. A replay that asks something else is detected and reported, and that problem then falls back to
 * whole-episode groups.
 */
@FunctionalInterface
public interface AgentProgram {
    /**
     * Plays {@code problem}.
     *
     * @param models a model per role, as a {@link ChatModel} or a streaming model
     * @return the episode's reward; success is a reward at or above the rollout's threshold
     */
    double run(Problem problem, RoleModels models) throws Exception;
}

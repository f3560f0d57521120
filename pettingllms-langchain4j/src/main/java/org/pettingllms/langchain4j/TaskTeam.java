package org.pettingllms.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;

/**
 * A task's team written as an agent program: each turn, each role is asked the task's prompt through its chat model
 * and the answer is applied to the task's state; the reward is 1 when the team solves the problem, else 0. It is
 * what a user's LangChain4j program looks like (a loop of model calls and the program's own logic; here the task's
 * environment is that logic), and it trains any built-in task through program rollouts, so the two ways of making
 * AT-GRPO's groups (a task's tree, a program's replay) can be compared on the same model and prompts.
 *
 * @param <S> the task's state
 */
public final class TaskTeam<S> implements AgentProgram {
    private final Task<S> task;
    private final PromptStyle style;

    public TaskTeam(Task<S> task, PromptStyle style) {
        this.task = task;
        this.style = style;
    }

    @Override
    public double run(Problem problem, RoleModels models) {
        S state = task.initialState(problem);
        for (int turn = 0; turn < task.maxTurns(); turn++) {
            for (String role : task.roles()) {
                String answer = models.chat(role)
                        .chat(messages(task.prompt(state, role, turn, style)))
                        .aiMessage()
                        .text();
                Transition<S> t = task.step(state, role, Completion.ofText(answer));
                state = t.next();
                if (t.done()) {
                    return t.success() ? 1.0 : 0.0;
                }
            }
        }
        return 0.0;
    }

    /** A task's prompt as LangChain4j messages, speaker for speaker (what the team's models are sent). */
    public static List<ChatMessage> messages(Prompt prompt) {
        List<ChatMessage> out = new ArrayList<>();
        for (org.pettingllms.core.data.ChatMessage m : prompt.messages()) {
            out.add(
                    switch (m.speaker()) {
                        case SYSTEM -> SystemMessage.from(m.content());
                        case USER -> UserMessage.from(m.content());
                        case ASSISTANT -> AiMessage.from(m.content());
                    });
        }
        return out;
    }
}

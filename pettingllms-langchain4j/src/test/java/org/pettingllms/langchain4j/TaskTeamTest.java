package org.pettingllms.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.RewardParts;
import org.pettingllms.core.data.StepOutcome;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;

/** A task played as a program: the task's prompts go to the role's model unchanged, its answers drive the state. */
class TaskTeamTest {
    /** Two roles add their answers to a counter; solved at the problem's seed, over after 3 turns. */
    static final Task<Integer> COUNT = new Task<>() {
        @Override
        public String id() {
            return "count-v1";
        }

        @Override
        public List<String> roles() {
            return List.of("a", "b");
        }

        @Override
        public int maxTurns() {
            return 3;
        }

        @Override
        public Integer initialState(Problem problem) {
            return 0;
        }

        @Override
        public Prompt prompt(Integer state, String role, int turn, PromptStyle style) {
            return style == PromptStyle.COMPACT
                    ? Prompt.compact(role + " at " + state)
                    : Prompt.chat("count", role + " at " + state + ", turn " + turn);
        }

        @Override
        public Transition<Integer> step(Integer state, String role, Completion completion) {
            int next = state + Integer.parseInt(completion.text().strip());
            boolean solved = next == 5;
            return new Transition<>(
                    next, RewardParts.ZERO, solved, solved, solved ? StepOutcome.SOLVED : StepOutcome.OK, "");
        }
    };

    /** Answers "1" (or "2" for role b), recording the messages it was sent. */
    static final class Recorder implements ChatModel {
        final List<List<ChatMessage>> seen = new ArrayList<>();
        final String answer;

        Recorder(String answer) {
            this.answer = answer;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            seen.add(request.messages());
            return ChatResponse.builder().aiMessage(AiMessage.from(answer)).build();
        }
    }

    @Test
    void theTasksPromptsReachTheModelsAndTheirAnswersDecideTheReward() throws Exception {
        Recorder a = new Recorder("1");
        Recorder b = new Recorder("2");
        double reward = new TaskTeam<>(COUNT, PromptStyle.COMPACT)
                .run(new Problem("p", 5, Map.of()), RoleModels.of(Map.of("a", a, "b", b)));
        assertThat(reward)
                .as("the counter goes 1, 3, 4, 6, 7, 9: never 5 in 3 turns")
                .isEqualTo(0.0);
        assertThat(a.seen)
                .extracting(m -> ((UserMessage) m.get(0)).singleText())
                .containsExactly("a at 0", "a at 3", "a at 6");
        Recorder one = new Recorder("1");
        Recorder three = new Recorder("4");
        assertThat(new TaskTeam<>(COUNT, PromptStyle.CHAT)
                        .run(new Problem("p", 5, Map.of()), RoleModels.of(Map.of("a", one, "b", three))))
                .as("1 + 4 = 5 on the first turn")
                .isEqualTo(1.0);
        assertThat(three.seen).hasSize(1);
        assertThat(three.seen.get(0)).containsExactly(SystemMessage.from("count"), UserMessage.from("b at 1, turn 0"));
    }
}

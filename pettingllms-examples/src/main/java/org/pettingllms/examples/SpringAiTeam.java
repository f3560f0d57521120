package org.pettingllms.examples;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.Problem;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.core.data.Transition;
import org.pettingllms.core.task.Task;
import org.pettingllms.endpoint.EndpointProgram;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;

/**
 * A task's team written with Spring AI: a {@link ChatClient} per role over Spring AI's OpenAI chat model, pointed at
 * the episode's base URL (the role is the model's name), asked the task's prompt each turn; the answers drive the
 * task's state and the reward is 1 when the team solved the problem. It reaches its models over HTTP as any
 * OpenAI client does, so it trains through the recording endpoint; it makes the calls the team program
 * ({@code TaskTeam}) makes and trains on the same samples.
 *
 * <p>Train it with {@code ./pettingllms train CONFIG --program org.pettingllms.examples.SpringAiTeam} and this module
 * on the class path; the command gives it the config's task and the endpoint.
 *
 * @param <S> the task's state
 */
public final class SpringAiTeam<S> implements EndpointProgram {
    private final Task<S> task;
    private final PromptStyle style;

    public SpringAiTeam(Task<S> task, PromptStyle style) {
        this.task = task;
        this.style = style;
    }

    @Override
    public double run(Problem problem, URI baseUrl) {
        Map<String, ChatClient> clients = new HashMap<>();
        S state = task.initialState(problem);
        for (int turn = 0; turn < task.maxTurns(); turn++) {
            for (String role : task.roles()) {
                String answer = clients.computeIfAbsent(role, r -> client(baseUrl, r))
                        .prompt()
                        .messages(messages(task.prompt(state, role, turn, style)))
                        .call()
                        .content();
                Transition<S> t = task.step(state, role, Completion.ofText(answer == null ? "" : answer));
                state = t.next();
                if (t.done()) {
                    return t.success() ? 1.0 : 0.0;
                }
            }
        }
        return 0.0;
    }

    /**
     * A role's client: the episode's base URL already ends in {@code /v1}, so the completions path is the rest; no
     * sampling options (the run's are used; the endpoint refuses a program's own).
     */
    static ChatClient client(URI baseUrl, String role) {
        OpenAiApi api = OpenAiApi.builder()
                .baseUrl(baseUrl.toString())
                .apiKey("unused")
                .completionsPath("/chat/completions")
                .build();
        OpenAiChatModel model = OpenAiChatModel.builder()
                .openAiApi(api)
                .defaultOptions(OpenAiChatOptions.builder().model(role).build())
                .build();
        return ChatClient.create(model);
    }

    static List<Message> messages(Prompt prompt) {
        List<Message> out = new ArrayList<>();
        for (org.pettingllms.core.data.ChatMessage m : prompt.messages()) {
            out.add(
                    switch (m.speaker()) {
                        case SYSTEM -> new SystemMessage(m.content());
                        case USER -> new UserMessage(m.content());
                        case ASSISTANT -> new AssistantMessage(m.content());
                    });
        }
        return out;
    }
}

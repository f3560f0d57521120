package org.pettingllms.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;

/**
 * One role's chat model inside a program run: the request's messages become the role's prompt (in the run's prompt
 * style), the run answers it (recorded, branched or sampled), and the answer comes back as an AI message with its
 * token usage. The run's sampling settings decide the distribution, as training needs: a request may shorten the
 * budget or add stop sequences, and is refused if it sets a temperature, top-p or top-k of its own, penalties, tools
 * or a response format (not yet supported).
 */
final class PolicyChatModel implements ChatModel {
    private final String role;
    private final PolicyRef policy;
    private final ProgramRun run;
    private final PromptStyle style;
    private final SamplingParams sampling;

    PolicyChatModel(String role, PolicyRef policy, ProgramRun run, PromptStyle style, SamplingParams sampling) {
        this.role = role;
        this.policy = policy;
        this.run = run;
        this.style = style;
        this.sampling = sampling;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        Prompt prompt = new Prompt(messages(request.messages()), style);
        Completion c = run.call(role, policy, prompt, params(request.parameters()));
        return ChatResponse.builder()
                .aiMessage(AiMessage.from(c.text()))
                .modelName(policy.toString())
                .tokenUsage(new TokenUsage(c.promptTokens().size(), c.tokens().size()))
                .finishReason(
                        c.finish() == org.pettingllms.core.data.FinishReason.LENGTH
                                ? FinishReason.LENGTH
                                : FinishReason.STOP)
                .build();
    }

    private List<org.pettingllms.core.data.ChatMessage> messages(List<ChatMessage> in) {
        List<org.pettingllms.core.data.ChatMessage> out = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
            ChatMessage m = in.get(i);
            if (m instanceof SystemMessage s) {
                out.add(org.pettingllms.core.data.ChatMessage.system(s.text()));
            } else if (m instanceof UserMessage u && u.hasSingleText()) {
                out.add(org.pettingllms.core.data.ChatMessage.user(u.singleText()));
            } else if (m instanceof AiMessage a && !a.hasToolExecutionRequests() && a.text() != null) {
                out.add(org.pettingllms.core.data.ChatMessage.assistant(a.text()));
            } else {
                throw new UnsupportedOperationException("role '" + role + "', message " + i + ": only system, text"
                        + " user and text AI messages are supported, got " + m.type());
            }
        }
        return out;
    }

    private SamplingParams params(ChatRequestParameters p) {
        if (p == null) {
            return sampling;
        }
        refuse(p.temperature(), "a temperature");
        refuse(p.topP(), "a top-p");
        refuse(p.topK(), "a top-k");
        refuse(p.frequencyPenalty(), "a frequency penalty");
        refuse(p.presencePenalty(), "a presence penalty");
        refuse(p.responseFormat(), "a response format");
        if (p.toolSpecifications() != null && !p.toolSpecifications().isEmpty()) {
            throw new UnsupportedOperationException("role '" + role + "': tool specifications are not supported yet");
        }
        int budget = p.maxOutputTokens() == null
                ? sampling.maxTokens()
                : Math.min(sampling.maxTokens(), p.maxOutputTokens());
        List<String> stop = new ArrayList<>(sampling.stop());
        if (p.stopSequences() != null) {
            stop.addAll(p.stopSequences());
        }
        return new SamplingParams(
                sampling.temperature(), sampling.topK(), sampling.topP(), budget, stop, sampling.seed());
    }

    private void refuse(Object value, String what) {
        if (value != null) {
            throw new IllegalArgumentException("role '" + role + "': the request sets " + what
                    + "; the run's sampling settings (rollout.*) decide it, as on-policy training needs");
        }
    }
}

package org.pettingllms.langchain4j;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.JsonSchemaElementUtils;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.pettingllms.core.backend.SamplingParams;
import org.pettingllms.core.data.Completion;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;
import org.pettingllms.core.data.PromptStyle;
import org.pettingllms.text.ChatTemplate;
import org.pettingllms.text.ToolCalls;

/**
 * One role's chat model inside a program run: the request's messages become the role's prompt (in the run's prompt
 * style), the run answers it (recorded, branched or sampled), and the answer comes back as an AI message with its
 * token usage. The run's sampling settings decide the distribution, as training needs: a request may shorten the
 * budget or add stop sequences, and is refused if it sets a temperature, top-p or top-k of its own, penalties or a
 * response format.
 *
 * <p>Tools: a request with tool specifications, or with earlier tool calls and their results in its messages, is
 * rendered by the model's chat template with the tools as the template's {@code tools} variable (as vLLM renders
 * an OpenAI request), and the answer's Hermes-format calls ({@link ToolCalls}) come back as tool execution
 * requests. Their ids are {@code call_<call>_<j>}, so a replayed run asks with the same ids the recording holds.
 */
final class PolicyChatModel implements ChatModel {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

    private final String role;
    private final PolicyRef policy;
    private final ProgramRun run;
    private final PromptStyle style;
    private final SamplingParams sampling;
    private final Optional<ChatTemplate> template;

    PolicyChatModel(
            String role,
            PolicyRef policy,
            ProgramRun run,
            PromptStyle style,
            SamplingParams sampling,
            Optional<ChatTemplate> template) {
        this.role = role;
        this.policy = policy;
        this.run = run;
        this.style = style;
        this.sampling = sampling;
        this.template = template;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        List<ToolSpecification> tools =
                request.parameters() == null || request.parameters().toolSpecifications() == null
                        ? List.of()
                        : request.parameters().toolSpecifications();
        boolean withTools = !tools.isEmpty() || request.messages().stream().anyMatch(PolicyChatModel::isToolTurn);
        Prompt prompt = withTools
                ? Prompt.compact(renderWithTools(request.messages(), tools))
                : new Prompt(messages(request.messages()), style);
        ProgramRun.Answered a = run.call(role, policy, prompt, params(request.parameters()));
        Completion c = a.completion();
        ToolCalls answer = tools.isEmpty() ? ToolCalls.none(c.text()) : ToolCalls.parse(c.text());
        List<ToolExecutionRequest> calls = new ArrayList<>();
        for (int j = 0; j < answer.calls().size(); j++) {
            ToolCalls.Call call = answer.calls().get(j);
            calls.add(ToolExecutionRequest.builder()
                    .id("call_" + a.index() + "_" + j)
                    .name(call.name())
                    .arguments(call.arguments())
                    .build());
        }
        AiMessage message = calls.isEmpty()
                ? AiMessage.from(c.text())
                : AiMessage.builder()
                        .text(answer.content())
                        .toolExecutionRequests(calls)
                        .build();
        FinishReason finish = !calls.isEmpty()
                ? FinishReason.TOOL_EXECUTION
                : c.finish() == org.pettingllms.core.data.FinishReason.LENGTH ? FinishReason.LENGTH : FinishReason.STOP;
        return ChatResponse.builder()
                .aiMessage(message)
                .modelName(policy.toString())
                .tokenUsage(new TokenUsage(c.promptTokens().size(), c.tokens().size()))
                .finishReason(finish)
                .build();
    }

    private static boolean isToolTurn(ChatMessage m) {
        return m instanceof ToolExecutionResultMessage || (m instanceof AiMessage a && a.hasToolExecutionRequests());
    }

    private List<org.pettingllms.core.data.ChatMessage> messages(List<ChatMessage> in) {
        List<org.pettingllms.core.data.ChatMessage> out = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
            ChatMessage m = in.get(i);
            if (m instanceof SystemMessage s) {
                out.add(org.pettingllms.core.data.ChatMessage.system(s.text()));
            } else if (m instanceof UserMessage u && u.hasSingleText()) {
                out.add(org.pettingllms.core.data.ChatMessage.user(u.singleText()));
            } else if (m instanceof AiMessage a && a.text() != null) {
                out.add(org.pettingllms.core.data.ChatMessage.assistant(a.text()));
            } else {
                throw unsupported(i, m);
            }
        }
        return out;
    }

    /** The conversation as the model's chat template renders it with tools: OpenAI's message and tool shapes. */
    private String renderWithTools(List<ChatMessage> in, List<ToolSpecification> tools) {
        ChatTemplate t = template.orElseThrow(() -> new UnsupportedOperationException("role '" + role
                + "': tools need the model's chat template, and model '" + policy.model() + "' has none"));
        if (!tools.isEmpty() && !t.readsTools()) {
            throw new UnsupportedOperationException("role '" + role + "': the chat template of model '" + policy.model()
                    + "' does not describe tools to the model (it never reads 'tools')");
        }
        List<Map<String, Object>> msgs = new ArrayList<>(in.size());
        for (int i = 0; i < in.size(); i++) {
            ChatMessage m = in.get(i);
            Map<String, Object> map = new LinkedHashMap<>();
            if (m instanceof SystemMessage s) {
                map.put("role", "system");
                map.put("content", s.text());
            } else if (m instanceof UserMessage u && u.hasSingleText()) {
                map.put("role", "user");
                map.put("content", u.singleText());
            } else if (m instanceof AiMessage a) {
                map.put("role", "assistant");
                map.put("content", a.text() == null ? "" : a.text());
                if (a.hasToolExecutionRequests()) {
                    List<Map<String, Object>> calls = new ArrayList<>();
                    for (ToolExecutionRequest r : a.toolExecutionRequests()) {
                        calls.add(Map.of(
                                "id",
                                r.id() == null ? "" : r.id(),
                                "type",
                                "function",
                                "function",
                                Map.of("name", r.name(), "arguments", arguments(r.arguments()))));
                    }
                    map.put("tool_calls", calls);
                }
            } else if (m instanceof ToolExecutionResultMessage r) {
                map.put("role", "tool");
                map.put("tool_call_id", r.id() == null ? "" : r.id());
                map.put("name", r.toolName());
                map.put("content", r.text());
            } else {
                throw unsupported(i, m);
            }
            msgs.add(map);
        }
        List<Map<String, Object>> specs = new ArrayList<>();
        for (ToolSpecification s : tools) {
            Map<String, Object> fn = new LinkedHashMap<>();
            fn.put("name", s.name());
            if (s.description() != null) {
                fn.put("description", s.description());
            }
            fn.put(
                    "parameters",
                    s.parameters() == null
                            ? Map.of("type", "object", "properties", Map.of())
                            : JsonSchemaElementUtils.toMap(s.parameters()));
            specs.add(Map.of("type", "function", "function", fn));
        }
        return t.renderMessages(msgs, true, specs.isEmpty() ? Map.of() : Map.of("tools", specs));
    }

    /** A call's JSON-object arguments as an object, as templates read them (vLLM does the same); else the text. */
    private static Object arguments(String args) {
        if (args == null) {
            return Map.of();
        }
        try {
            JsonNode parsed = JSON.readTree(args);
            return parsed != null && parsed.isObject() ? JSON.convertValue(parsed, MAP) : args;
        } catch (JacksonException e) {
            return args;
        }
    }

    private UnsupportedOperationException unsupported(int i, ChatMessage m) {
        return new UnsupportedOperationException("role '" + role + "', message " + i + ": only system, text user,"
                + " AI and tool result messages are supported, got " + m.type());
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
        if (p.toolChoice() == ToolChoice.REQUIRED) {
            throw new IllegalArgumentException("role '" + role + "': tool choice REQUIRED: the model is not"
                    + " constrained to call a tool here; leave the choice to it (AUTO)");
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

package org.pettingllms.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.List;

/**
 * A chat model in streaming form: the answer is complete before the first chunk (the engine samples whole
 * answers), so the handler gets its text as one partial response, each tool call complete, then the response. The
 * call runs on the caller's thread, so a program stays deterministic for replays. Errors (a diverged replay
 * included) go to {@code onError}, as streaming models report them.
 */
final class OneChunkStreaming implements StreamingChatModel {
    private final ChatModel model;

    OneChunkStreaming(ChatModel model) {
        this.model = model;
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        ChatResponse r;
        try {
            r = model.chat(request);
        } catch (RuntimeException e) {
            handler.onError(e);
            return;
        }
        String text = r.aiMessage().text();
        if (text != null && !text.isEmpty()) {
            handler.onPartialResponse(text);
        }
        List<ToolExecutionRequest> calls = r.aiMessage().toolExecutionRequests();
        for (int i = 0; i < calls.size(); i++) {
            handler.onCompleteToolCall(new CompleteToolCall(i, calls.get(i)));
        }
        handler.onCompleteResponse(r);
    }
}

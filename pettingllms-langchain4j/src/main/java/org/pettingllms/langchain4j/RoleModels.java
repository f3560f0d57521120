package org.pettingllms.langchain4j;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The models of one program run, one per role, in both of LangChain4j's forms: {@link #chat} for whole answers
 * and {@link #streaming} for programs (or AI services) written against {@link StreamingChatModel}. Both forms of a
 * role are the same model: a call through either is recorded as that role's turn.
 */
public final class RoleModels {
    private final Map<String, ChatModel> chat;
    private final Map<String, StreamingChatModel> streaming = new LinkedHashMap<>();

    private RoleModels(Map<String, ? extends ChatModel> chat) {
        this.chat = new LinkedHashMap<>(chat);
        chat.forEach((role, model) -> streaming.put(role, new OneChunkStreaming(model)));
    }

    /**
     * Role models from chat models, as the trainer builds them; also how a program is tried outside training (with
     * any LangChain4j model). The streaming form of each streams the whole answer as one chunk.
     */
    public static RoleModels of(Map<String, ? extends ChatModel> models) {
        return new RoleModels(models);
    }

    /** The role's model, answering whole. */
    public ChatModel chat(String role) {
        return known(chat.get(role), role);
    }

    /** The role's model as a streaming model: the answer arrives as one chunk once it is sampled. */
    public StreamingChatModel streaming(String role) {
        return known(streaming.get(role), role);
    }

    /** The roles, in the order the trainer lists them. */
    public List<String> roles() {
        return List.copyOf(chat.keySet());
    }

    private <M> M known(M model, String role) {
        if (model == null) {
            throw new IllegalArgumentException("no role '" + role + "'; the roles are " + chat.keySet());
        }
        return model;
    }
}

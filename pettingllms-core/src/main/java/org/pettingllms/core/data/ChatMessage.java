package org.pettingllms.core.data;

import java.util.Objects;

/** One chat message; {@code speaker} is the chat role (system, user, assistant), not the agent role. */
public record ChatMessage(Speaker speaker, String content) {
    public enum Speaker {
        SYSTEM,
        USER,
        ASSISTANT
    }

    public ChatMessage {
        Objects.requireNonNull(speaker, "speaker");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage system(String content) {
        return new ChatMessage(Speaker.SYSTEM, content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage(Speaker.USER, content);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage(Speaker.ASSISTANT, content);
    }
}

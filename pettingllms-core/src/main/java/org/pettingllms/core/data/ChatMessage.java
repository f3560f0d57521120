package org.pettingllms.core.data;

import java.util.List;
import java.util.Objects;

/**
 * One chat message; {@code speaker} is the chat role (system, user, assistant), not the agent role. A message may
 * carry images: they come before its text, in order, as chat APIs' content parts {@code [image, ..., text]} and the
 * chat templates of vision-language models render them.
 */
public record ChatMessage(Speaker speaker, String content, List<Image> images) {
    public enum Speaker {
        SYSTEM,
        USER,
        ASSISTANT
    }

    /** A text-only message. */
    public ChatMessage(Speaker speaker, String content) {
        this(speaker, content, List.of());
    }

    public ChatMessage {
        images = List.copyOf(images);
        Objects.requireNonNull(speaker, "speaker");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage system(String content) {
        return new ChatMessage(Speaker.SYSTEM, content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage(Speaker.USER, content);
    }

    /** A user message that shows {@code images} before its text. */
    public static ChatMessage user(String content, List<Image> images) {
        return new ChatMessage(Speaker.USER, content, images);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage(Speaker.ASSISTANT, content);
    }
}

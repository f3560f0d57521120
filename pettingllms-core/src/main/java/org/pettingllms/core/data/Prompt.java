package org.pettingllms.core.data;

import java.util.List;
import java.util.Objects;

/**
 * What a role sees before it acts: chat messages plus the style that says how a sampler must render them.
 * Two prompts are equal when their messages are byte-identical, which is what tree sampling requires of the K
 * candidates of one group.
 */
public record Prompt(List<ChatMessage> messages, PromptStyle style) {
    public Prompt {
        messages = List.copyOf(messages);
        Objects.requireNonNull(style, "style");
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a prompt needs at least one message");
        }
    }

    /** A compact prompt: one user message fed to the model as raw text. */
    public static Prompt compact(String text) {
        return new Prompt(List.of(ChatMessage.user(text)), PromptStyle.COMPACT);
    }

    public static Prompt chat(String system, String user) {
        return new Prompt(List.of(ChatMessage.system(system), ChatMessage.user(user)), PromptStyle.CHAT);
    }

    /** Every image of the prompt, in the order its messages show them. */
    public List<Image> images() {
        return messages.stream().flatMap(m -> m.images().stream()).toList();
    }

    /** The concatenated message contents; for compact prompts, exactly the text the model reads. */
    public String text() {
        if (messages.size() == 1) {
            return messages.get(0).content();
        }
        StringBuilder sb = new StringBuilder();
        for (ChatMessage m : messages) {
            if (!sb.isEmpty()) {
                sb.append("\n\n");
            }
            sb.append(m.content());
        }
        return sb.toString();
    }
}

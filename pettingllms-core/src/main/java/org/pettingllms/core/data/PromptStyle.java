package org.pettingllms.core.data;

/**
 * How a task phrases its observations. {@code CHAT}: natural-language instructions for real chat LLMs, rendered
 * with the model's chat template. {@code COMPACT}: short fixed-format text for tiny models trained from scratch,
 * fed to the model as plain text (no chat template).
 */
public enum PromptStyle {
    CHAT,
    COMPACT
}

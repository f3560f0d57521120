package org.pettingllms.envs.data;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.pettingllms.core.backend.TextPolicy;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.data.Prompt;

/**
 * What the dataset tasks' oracles share (policies that know the references, for evaluation without a model and as
 * the scripted team): the items they know, whether they answer wrongly on purpose, and how a prompt is answered: the
 * item it is about is found by its key in the prompt's text ({@link ItemLookup}), and a prompt about none gets an
 * "I do not know" answer (the task's own, where its answers have a form).
 *
 * @param <T> the row type
 */
public abstract class ItemOracle<T> implements TextPolicy {
    private final List<T> items;
    private final boolean wrong;
    private final Function<T, String> key;

    /** @param key the text of an item that its prompts show (its question, its id) */
    protected ItemOracle(List<T> items, boolean wrong, Function<T, String> key) {
        this.items = List.copyOf(items);
        this.wrong = wrong;
        this.key = key;
    }

    @Override
    public final String answer(PolicyRef policy, Prompt prompt, SplittableRandom rng) {
        T item = find(prompt.text());
        return item == null ? unknown(prompt) : answer(item, prompt, rng);
    }

    /** The item whose key the text holds (the longest where several do), or null. */
    protected T find(String text) {
        return ItemLookup.in(text, items, key);
    }

    /** The answer to a prompt about no item this oracle knows. */
    protected String unknown(Prompt prompt) {
        return "I do not know this problem.";
    }

    /** The answer to {@code prompt}, which is about {@code item}. */
    protected abstract String answer(T item, Prompt prompt, SplittableRandom rng);

    protected final List<T> items() {
        return items;
    }

    /** Whether this oracle answers wrongly on purpose. */
    protected final boolean wrong() {
        return wrong;
    }
}

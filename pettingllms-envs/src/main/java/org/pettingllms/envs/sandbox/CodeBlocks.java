package org.pettingllms.envs.sandbox;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Finds the program in a model's answer: the last fenced {@code ```python} block, else the last fenced block. */
public final class CodeBlocks {
    private static final Pattern PYTHON = Pattern.compile("```(?:python|py|python3)[ \\t]*\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern ANY = Pattern.compile("```[^\\n`]*\\n(.*?)```", Pattern.DOTALL);

    private CodeBlocks() {}

    public static Optional<String> lastPython(String text) {
        String code = last(PYTHON.matcher(text));
        if (code == null) {
            code = last(ANY.matcher(text));
        }
        return code == null || code.isBlank() ? Optional.empty() : Optional.of(code);
    }

    /** The last fenced block of any language, or empty when there is none (its content may be blank). */
    public static Optional<String> lastFenced(String text) {
        return Optional.ofNullable(last(ANY.matcher(text)));
    }

    private static String last(Matcher m) {
        String found = null;
        while (m.find()) {
            found = m.group(1);
        }
        return found;
    }

    /** A fenced python block around {@code code}. */
    public static String fence(String code) {
        return "```python\n" + (code.endsWith("\n") ? code : code + "\n") + "```";
    }
}

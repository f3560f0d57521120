package org.pettingllms.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What the check commands ({@code check-answer}, {@code check-sql}) share: a text argument may be {@code @FILE} (the
 * file's text), and the verdict is printed as lines or, with {@code --json}, as one JSON object, with exit code 0
 * whether or not the answer is right.
 */
final class CheckIo {
    @Option(names = "--json", description = "print one JSON object instead of lines")
    boolean json;

    /** The command this is mixed into, for its output. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The text an argument gives: the file's with {@code @FILE}, else the argument itself. */
    static String text(String arg) throws IOException {
        return arg.startsWith("@") ? Files.readString(Path.of(arg.substring(1)), StandardCharsets.UTF_8) : arg;
    }

    /** The lines' last: the verdict and its reason. */
    static String verdict(boolean correct, String reason) {
        return "verdict:    " + (correct ? "correct" : "wrong") + ": " + reason;
    }

    /** Prints the object {@code fields} makes (with {@code --json}) or what {@code lines} prints; exit code 0. */
    int print(Supplier<Map<String, Object>> fields, Consumer<PrintWriter> lines) throws JsonProcessingException {
        PrintWriter out = command.commandLine().getOut();
        if (json) {
            out.println(new ObjectMapper().writeValueAsString(fields.get()));
        } else {
            lines.accept(out);
        }
        out.flush();
        return 0;
    }
}

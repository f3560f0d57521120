package org.pettingllms.serve;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.pettingllms.core.data.Problem;

/**
 * An agent program in any language, one process per episode: {@code sh -c COMMAND} with {@code OPENAI_BASE_URL}
 * (the episode's base URL; the model name is the role), {@code OPENAI_API_KEY} (any value works) and
 * {@code PETTINGLLMS_PROBLEM} (the problem as JSON: {@code id}, {@code seed}, {@code fields}) in its environment.
 * Its reward is the number on the last line it prints, or what it posted to {@code <base>/reward}. A process that
 * exits non-zero or outlives {@code timeout} fails the rollout with its last error output.
 */
public record ProcessProgram(String command, Duration timeout) implements EndpointProgram {
    @Override
    public double run(Problem problem, URI baseUrl) throws Exception {
        ObjectNode p =
                InferenceServer.JSON.createObjectNode().put("id", problem.id()).put("seed", problem.seed());
        p.set("fields", InferenceServer.JSON.valueToTree(problem.fields()));
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command);
        pb.environment().put("OPENAI_BASE_URL", baseUrl.toString());
        pb.environment().put("OPENAI_API_KEY", "pettingllms");
        pb.environment().put("PETTINGLLMS_PROBLEM", p.toString());
        Process process = pb.start();
        try {
            process.getOutputStream().close();
            CompletableFuture<String> out = read(process.getInputStream());
            CompletableFuture<String> err = read(process.getErrorStream());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "program '" + command + "' ran over " + timeout.toSeconds() + " s on problem " + problem.id());
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("program '" + command + "' exited with " + process.exitValue()
                        + " on problem " + problem.id() + ": " + lastLines(err.get()));
            }
            List<String> lines = out.get().lines().filter(l -> !l.isBlank()).toList();
            if (lines.isEmpty()) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(lines.get(lines.size() - 1).strip());
            } catch (NumberFormatException e) {
                return Double.NaN; // no printed reward: the posted one counts
            }
        } finally {
            // a shell's children too: a process left running would hold its pipes and its reader open
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    /** Reads a pipe to its end on a virtual thread of its own, so that no process waits for a full pipe. */
    private static CompletableFuture<String> read(InputStream in) {
        CompletableFuture<String> text = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (in) {
                text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                text.complete("");
            }
        });
        return text;
    }

    /** The last error lines on one line (the command line shows one line), the last first. */
    private static String lastLines(String s) {
        List<String> lines = s.strip().lines().filter(l -> !l.isBlank()).toList();
        List<String> last = new java.util.ArrayList<>(lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        java.util.Collections.reverse(last);
        String joined = String.join(" <- ", last);
        return joined.length() > 500 ? joined.substring(0, 500) + "..." : joined;
    }
}

package org.pettingllms.endpoint;

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
import org.pettingllms.http.Http;

/**
 * An agent program in any language, one process per episode: {@code sh -c COMMAND} with {@code OPENAI_BASE_URL}
 * (the episode's base URL; the model name is the role), {@code OPENAI_API_KEY} (any value works) and
 * {@code PETTINGLLMS_PROBLEM} (the problem as JSON: {@code id}, {@code seed}, {@code fields}) in its environment.
 * Its reward is the number on the last line it prints, or what it posted to {@code <base>/reward}. A process that
 * exits non-zero or outlives {@code timeout} fails the rollout with its last error output. The program runs in a
 * process group of its own ({@code setsid}, where there is one), and the whole group is killed when the episode
 * ends: a child it left running (a server, a {@code sleep &} that keeps its output open) can neither hold the
 * episode past its timeout nor outlive it.
 */
public record ProcessProgram(String command, Duration timeout) implements EndpointProgram {
    @Override
    public double run(Problem problem, URI baseUrl) throws Exception {
        ObjectNode p = Http.JSON.createObjectNode().put("id", problem.id()).put("seed", problem.seed());
        p.set("fields", Http.JSON.valueToTree(problem.fields()));
        ProcessBuilder pb =
                SETSID ? new ProcessBuilder("setsid", "sh", "-c", command) : new ProcessBuilder("sh", "-c", command);
        pb.environment().put("OPENAI_BASE_URL", baseUrl.toString());
        pb.environment().put("OPENAI_API_KEY", "pettingllms");
        pb.environment().put("PETTINGLLMS_PROBLEM", p.toString());
        Process process = pb.start();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            process.getOutputStream().close();
            CompletableFuture<String> out = read(process.getInputStream());
            CompletableFuture<String> err = read(process.getErrorStream());
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "program '" + command + "' ran over " + timeout.toSeconds() + " s on problem " + problem.id());
            }
            // the program has exited; what it left running may still hold its output open: the rest of the time,
            // then the group goes and the pipes close
            try {
                CompletableFuture.allOf(out, err).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                killGroup(process);
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
            killGroup(process);
        }
    }

    /** Whether {@code setsid} is here to give each program a process group of its own. */
    private static final boolean SETSID = java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/setsid"))
            || java.nio.file.Files.isExecutable(java.nio.file.Path.of("/bin/setsid"));

    /**
     * Kills the program's process group (its id is the program's: setsid made it the group's leader) and, where
     * there is no group, its descendants: a process left running would hold its pipes and its reader open.
     */
    private static void killGroup(Process process) {
        if (SETSID) {
            try {
                new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start()
                        .waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                // no kill command: the descendants below are what can be reached
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
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

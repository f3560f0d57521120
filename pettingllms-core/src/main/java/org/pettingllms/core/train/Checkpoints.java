package org.pettingllms.core.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.core.util.AtomicFiles;

/**
 * Checkpoints a user can find: {@code checkpoints/step-<N>/<name>/} with N the 1-based step the step lines print,
 * and {@code name} the role that a policy serves ({@code tool}, {@code plan}) or {@code shared} for a policy that
 * serves several roles (L1). Each holds the learner's own layout (PEFT adapter or Hugging Face weights, optimizer
 * state). {@code latest.json} (replaced atomically once a checkpoint is complete, so a run killed while saving
 * resumes from the previous one) records the step and every policy's folder; {@code checkpoints/latest} is a
 * symbolic link to the newest step directory where the file system has them.
 */
public final class Checkpoints {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path dir;
    private final Learner learner;
    private final PolicyMap policies;

    Checkpoints(Path dir, Learner learner, PolicyMap policies) {
        this.dir = dir;
        this.learner = learner;
        this.policies = policies;
    }

    /** Saves the trained policies after step {@code step} (0-based) as {@code step-<step + 1>}. */
    void save(int step) throws IOException {
        String name = "step-" + (step + 1);
        Path stepDir = dir.resolve(name);
        Files.createDirectories(stepDir);
        ObjectNode latest = JSON.createObjectNode().put("step", step).put("dir", name);
        ObjectNode folders = latest.putObject("policies");
        for (PolicyRef p : policies.trainedPolicies()) {
            String folder = folder(policies, p);
            learner.save(p, stepDir.resolve(folder));
            folders.put(p.toString(), folder);
        }
        AtomicFiles.writeString(dir.resolve("latest.json"), latest.toPrettyString());
        link(name);
    }

    /** Loads the latest complete checkpoint into the learner; returns its step (0-based). */
    int restoreLatest() throws IOException {
        if (!Files.exists(dir.resolve("latest.json"))) {
            throw new IOException("nothing to resume: no checkpoint in " + dir);
        }
        Located latest = locate(dir, policies);
        for (Map.Entry<PolicyRef, Path> f : latest.folders().entrySet()) {
            learner.load(f.getKey(), f.getValue());
        }
        return latest.step();
    }

    /**
     * The folders of a checkpoint directory: a step directory, or a run's {@code checkpoints/} (its latest step);
     * each policy of {@code policies} with the folder it was saved in. Fails with one line naming what is missing.
     */
    public static Map<PolicyRef, Path> find(Path checkpoint, PolicyMap policies) throws IOException {
        return locate(checkpoint, policies).folders();
    }

    /** A checkpoint's step (0-based; -1 when no {@code latest.json} names it) and each policy's folder. */
    private record Located(int step, Map<PolicyRef, Path> folders) {}

    private static Located locate(Path checkpoint, PolicyMap policies) throws IOException {
        Path stepDir = checkpoint;
        JsonNode recorded = null; // latest.json, when it describes this step directory
        Path parent = checkpoint.toAbsolutePath().getParent();
        if (Files.exists(checkpoint.resolve("latest.json"))) {
            recorded = JSON.readTree(checkpoint.resolve("latest.json").toFile());
            stepDir = checkpoint.resolve(recorded.path("dir").asText());
        } else if (parent != null && Files.exists(parent.resolve("latest.json"))) {
            JsonNode l = JSON.readTree(parent.resolve("latest.json").toFile());
            if (l.path("dir")
                    .asText()
                    .equals(checkpoint.toAbsolutePath().getFileName().toString())) {
                recorded = l;
            }
        }
        if (!Files.isDirectory(stepDir)) {
            throw new IllegalArgumentException("checkpoint " + checkpoint + ": not a checkpoint directory (expected "
                    + "runs/<run>/checkpoints or runs/<run>/checkpoints/step-<N>)");
        }
        Map<PolicyRef, Path> out = new LinkedHashMap<>();
        for (PolicyRef p : policies.trainedPolicies()) {
            String folder = recorded != null && recorded.path("policies").has(p.toString())
                    ? recorded.path("policies").path(p.toString()).asText()
                    : folder(policies, p);
            Path f = stepDir.resolve(folder);
            if (!Files.isDirectory(f) && Files.isDirectory(stepDir.resolve(legacyFolder(p)))) {
                f = stepDir.resolve(legacyFolder(p)); // written before folders were named by role
            }
            if (!Files.isDirectory(f)) {
                throw new IllegalArgumentException("checkpoint " + stepDir + ": no folder '" + folder + "' for " + p
                        + " (it holds " + list(stepDir) + "); was it written by a run of this config's level?");
            }
            out.put(p, f);
        }
        return new Located(recorded == null ? -1 : recorded.path("step").asInt(), out);
    }

    /** A policy's folder: the role it serves, or {@code shared} when it serves several. */
    static String folder(PolicyMap policies, PolicyRef p) {
        List<String> roles = policies.byRole().entrySet().stream()
                .filter(e -> e.getValue().equals(p))
                .map(Map.Entry::getKey)
                .toList();
        return roles.size() == 1 ? roles.get(0) : "shared";
    }

    static String legacyFolder(PolicyRef p) {
        return p.toString().replaceAll("[/\\\\:]", "_");
    }

    private static String list(Path d) throws IOException {
        try (var s = Files.list(d)) {
            return s.map(x -> x.getFileName().toString()).sorted().toList().toString();
        }
    }

    /** Points {@code latest} at the step directory: a new link renamed over the old one, so it never dangles. */
    private void link(String name) {
        Path tmp = dir.resolve("latest.tmp");
        try {
            Files.deleteIfExists(tmp);
            Files.createSymbolicLink(tmp, Path.of(name));
            Files.move(tmp, dir.resolve("latest"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | UnsupportedOperationException e) {
            // no symbolic links here: latest.json still says which step is the latest
        }
    }
}

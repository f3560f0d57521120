package org.pettingllms.core.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.pettingllms.core.util.AtomicFiles;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.backend.PolicyRef;

/**
 * Checkpoints under {@code checkpoints/step-NNNNNN/<policy>/} (the learner's own layout) and a {@code latest}
 * pointer replaced atomically once a checkpoint is complete: a run killed while saving resumes from the previous
 * complete checkpoint.
 */
final class Checkpoints {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path dir;
    private final Learner learner;
    private final PolicyMap policies;

    Checkpoints(Path dir, Learner learner, PolicyMap policies) {
        this.dir = dir;
        this.learner = learner;
        this.policies = policies;
    }

    void save(int step) throws IOException {
        Path stepDir = dir.resolve(String.format("step-%06d", step));
        Files.createDirectories(stepDir);
        for (PolicyRef p : policies.trainedPolicies()) {
            learner.save(p, stepDir.resolve(folder(p)));
        }
        AtomicFiles.writeString(dir.resolve("latest.json"), JSON.createObjectNode().put("step", step)
                .put("dir", stepDir.getFileName().toString()).toPrettyString());
    }

    /** Loads the latest complete checkpoint into the learner; returns its step. */
    int restoreLatest() throws IOException {
        Path latest = dir.resolve("latest.json");
        if (!Files.exists(latest)) {
            throw new IOException("nothing to resume: no checkpoint in " + dir);
        }
        var node = JSON.readTree(latest.toFile());
        Path stepDir = dir.resolve(node.path("dir").asText());
        for (PolicyRef p : policies.trainedPolicies()) {
            learner.load(p, stepDir.resolve(folder(p)));
        }
        return node.path("step").asInt();
    }

    /** A folder name for a policy: {@code model} or {@code model+adapter}, path separators replaced. */
    static String folder(PolicyRef p) {
        return p.toString().replaceAll("[/\\\\:]", "_");
    }
}

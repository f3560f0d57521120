package org.pettingllms.core.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.pettingllms.core.rollout.EpisodeResult;
import org.pettingllms.core.rollout.StepRecord;

/** {@code transcripts.jsonl}: a few validation episodes per validation, with every prompt and answer. */
final class Transcripts {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;

    Transcripts(Path file) {
        this.file = file;
    }

    /** Drops the transcripts of steps a resumed run redoes. */
    void truncateFrom(int step) throws IOException {
        new MetricsLog(file).truncateFrom(step);
    }

    void append(int step, List<EpisodeResult> episodes) {
        StringBuilder lines = new StringBuilder();
        for (EpisodeResult e : episodes) {
            ObjectNode o = JSON.createObjectNode()
                    .put("step", step)
                    .put("problem", e.problem().id())
                    .put("success", e.success());
            ArrayNode path = o.putArray("path");
            for (StepRecord s : e.path()) {
                ObjectNode entry = path.addObject();
                if (!s.prompt().images().isEmpty()) {
                    // what the role saw, as data: URLs (the boards drawn here are a few kilobytes each)
                    ArrayNode images = entry.putArray("images");
                    s.prompt().images().forEach(i -> images.add(i.toDataUrl()));
                }
                entry.put("turn", s.turn())
                        .put("role", s.role())
                        .put("prompt", s.prompt().text())
                        .put("answer", s.answer())
                        .put("summary", s.summary())
                        .put("reward", s.mixedReward())
                        .put("stop", s.outcome().name());
            }
            lines.append(o).append('\n');
        }
        try {
            Files.writeString(file, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write " + file, ex);
        }
    }
}

package org.pettingllms.torch.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.Map;
import org.pettingllms.torch.io.Tensor;

/**
 * A Hugging Face model directory as read: its {@code config.json} and its weights by name. {@code dir} is where a
 * family finds its other files ({@code preprocessor_config.json}); null for a model made in memory.
 */
public record ModelFiles(Path dir, JsonNode config, Map<String, Tensor> weights) {
    /** How messages name the config: the file, or "config" for one made in memory. */
    public String source() {
        return dir == null ? "config" : dir.resolve("config.json").toString();
    }
}

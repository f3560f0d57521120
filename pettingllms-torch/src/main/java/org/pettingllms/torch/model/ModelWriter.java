package org.pettingllms.torch.model;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How a family writes a model directory whose decoder is only part of it (a vision-language model also writes its
 * vision tower's weights, its own config.json and its preprocessor settings).
 */
public interface ModelWriter {
    /** Writes the model around {@code decoder} (its current weights) into {@code dir}, each file atomically. */
    void write(DecoderModel decoder, Path dir) throws IOException;
}

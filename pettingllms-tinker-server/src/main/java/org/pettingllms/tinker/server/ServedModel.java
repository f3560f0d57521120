package org.pettingllms.tinker.server;

import java.nio.file.Path;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * The base model this server trains and samples, and the engine that runs it: how a client may name the model, and
 * the vocabulary and context its requests must fit.
 *
 * @param model the engine's model name (its {@code policy.model})
 */
record ServedModel(EmbeddedEngine engine, String model, TinkerServer.Options options) {
    /** The served model's vocabulary: token ids outside it are refused before they reach the engine. */
    int vocab() {
        return engine.registry().model(model).config().vocabSize();
    }

    /** The served model's context: a sequence or prompt + max_tokens longer than it is refused. */
    int context() {
        return engine.registry().model(model).config().maxPositionEmbeddings();
    }

    /** A client may name the base model by its served name, its directory, or the directory's own name. */
    boolean serves(String name) {
        if (name.isEmpty()) {
            return false;
        }
        Path dir = Path.of(model).toAbsolutePath().normalize();
        return name.equals(options.servedName())
                || name.equals(model)
                || (dir.getFileName() != null && name.equals(dir.getFileName().toString()))
                || (!name.contains(":")
                        && Path.of(name).toAbsolutePath().normalize().equals(dir));
    }
}

package org.pettingllms.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.pettingllms.core.backend.PolicyMap;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.text.TextCodec;
import org.pettingllms.torch.engine.EmbeddedEngine;

/**
 * This process's embedded engine for a command, opened the first time something needs its weights: a backend that
 * only tokenises (a Tinker service samples and trains) never opens it, so a run on a service reads its model's
 * tokenizer and config and no weight. Codecs come from the tokenizer alone until the engine is open.
 */
final class LocalEngine implements AutoCloseable {
    private final RunConfig config;
    private final PolicyMap policies;
    private TextCodec codec; // of policy.model, read once: every model of a run loads from it
    private EmbeddedEngine engine;

    LocalEngine(RunConfig config, PolicyMap policies) {
        this.config = config;
        this.policies = policies;
    }

    /** The engine, its models loaded on the first call. */
    synchronized EmbeddedEngine get() {
        if (engine == null) {
            try {
                engine = EmbeddedEngine.open(config, policies, codec);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return engine;
    }

    /** Whether the engine's weights were loaded. */
    synchronized boolean opened() {
        return engine != null;
    }

    /** The codec of a policy's model (every model of a run loads from {@code policy.model}), with no weights. */
    synchronized TextCodec codec(String model) {
        if (engine != null) {
            return engine.codec(model);
        }
        if (codec == null) {
            try {
                codec = EmbeddedEngine.codecOf(config.policy().model());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return codec;
    }

    @Override
    public synchronized void close() {
        if (engine != null) {
            engine.close();
        }
    }
}

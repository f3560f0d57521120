package org.pettingllms.text.backend;

import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.pettingllms.core.backend.Learner;
import org.pettingllms.core.backend.Sampler;
import org.pettingllms.core.config.RunConfig;
import org.pettingllms.core.data.PolicyRef;
import org.pettingllms.text.TextCodec;

/**
 * Where a run's updates happen, chosen by {@code learner.kind}: this process's engine, or a training service that
 * then also samples the rollouts. Backends are found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/org.pettingllms.text.backend.LearnerBackend}) as tasks are, so a jar on the class path
 * can add one and no command branches on a kind.
 */
public interface LearnerBackend {
    /** The {@code learner.kind} this backend answers to. */
    String kind();

    /** The run's sampler and learner on this backend; config errors name their key ({@code learner.url}). */
    Opened open(Local local);

    /**
     * The config's errors this backend can see before any weights load (a missing service URL), thrown as one-line
     * {@link org.pettingllms.core.config.ConfigException}s; nothing by default.
     */
    default void check(RunConfig config) {}

    /**
     * What this process has for a backend to use. The local engine's weights load the first time its sampler or
     * learner is asked for: a backend that only sends token ids (a training service) asks for neither, and the run
     * then reads only its model's tokenizer and config.
     *
     * @param sampler the local engine's sampler, loaded when first asked for
     * @param learner the local engine's learner, loaded when first asked for
     * @param codecs  each policy's codec (its model's tokenizer and chat template, no weights), for backends that
     *                send token ids
     * @param env     the environment keys are read from
     */
    record Local(
            RunConfig config,
            Supplier<Sampler> sampler,
            Supplier<Learner> learner,
            Function<PolicyRef, TextCodec> codecs,
            Map<String, String> env) {}

    /**
     * An open backend.
     *
     * @param weightsAtService whether the trained weights live at a service: adapters and checkpoints then load
     *                         through {@link Learner#load} (a checkpoint records where they are), not into the local
     *                         engine
     * @param description      one line for the run's output, empty for the local engine
     * @param onClose          releases what the backend holds (sessions, clients)
     */
    record Opened(Sampler sampler, Learner learner, boolean weightsAtService, String description, AutoCloseable onClose)
            implements AutoCloseable {
        /** The local engine itself. */
        public static Opened local(Local local) {
            return new Opened(local.sampler().get(), local.learner().get(), false, "", () -> {});
        }

        @Override
        public void close() throws Exception {
            onClose.close();
        }
    }
}

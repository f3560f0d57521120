package org.pettingllms.text.backend;

import java.util.ServiceLoader;
import java.util.TreeSet;
import org.pettingllms.core.config.ConfigException;
import org.pettingllms.core.config.RunConfig;

/** Finds the {@link LearnerBackend} a config's {@code learner.kind} names. */
public final class LearnerBackends {
    private LearnerBackends() {}

    /** The backend of {@code config}, its config checked; an unknown kind is a one-line error naming the known ones. */
    public static LearnerBackend of(RunConfig config) {
        String kind = config.learner().kind();
        TreeSet<String> known = new TreeSet<>();
        for (LearnerBackend b : ServiceLoader.load(LearnerBackend.class)) {
            if (b.kind().equals(kind)) {
                b.check(config);
                return b;
            }
            known.add(b.kind());
        }
        throw new ConfigException("config key 'learner.kind': unknown learner '" + kind + "'; available: " + known);
    }
}

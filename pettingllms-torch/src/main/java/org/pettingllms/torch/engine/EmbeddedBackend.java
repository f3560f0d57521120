package org.pettingllms.torch.engine;

import org.pettingllms.text.backend.LearnerBackend;

/** {@code learner.kind: embedded} (the default): updates on this process's engine, rollouts on its sampler. */
public final class EmbeddedBackend implements LearnerBackend {
    @Override
    public String kind() {
        return "embedded";
    }

    @Override
    public Opened open(Local local) {
        return Opened.local(local);
    }
}

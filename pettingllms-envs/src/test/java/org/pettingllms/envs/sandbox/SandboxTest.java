package org.pettingllms.envs.sandbox;

import java.nio.file.Path;

/** The sandbox contract on the isolation a trainer gets on this machine. */
class SandboxTest extends SandboxContract {
    @Override
    Sandbox openIn(Path parent) {
        return parent == null ? Sandbox.create(LIMITS, 2) : Sandbox.create(LIMITS, 2, Isolation.detect(), -1, parent);
    }
}

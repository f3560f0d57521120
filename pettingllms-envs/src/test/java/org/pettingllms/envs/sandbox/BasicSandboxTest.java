package org.pettingllms.envs.sandbox;

import java.nio.file.Path;

/**
 * The sandbox contract on basic isolation (no namespaces: what a user gets where the kernel refuses user namespaces);
 * from a root trainer the programs start as an unprivileged user, as they would for a user without root.
 */
class BasicSandboxTest extends SandboxContract {
    @Override
    Sandbox openIn(Path parent) {
        return Sandbox.create(LIMITS, 2, Isolation.BASIC, Isolation.uid() == 0 ? NOBODY : -1, parent);
    }
}

package org.pettingllms.envs.sandbox;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;

/**
 * The sandbox contract as a user without root gets it where the kernel allows user namespaces: from a root trainer
 * the programs start as an unprivileged user (without root, {@link SandboxTest} already runs this mode).
 */
class UnprivilegedSandboxTest extends SandboxContract {
    @Override
    Sandbox openIn(Path parent) {
        assumeTrue(Isolation.uid() == 0, "without root, SandboxTest runs the unprivileged mode itself");
        assumeTrue(Isolation.onPath("unshare") && Isolation.onPath("setpriv"), "needs util-linux's unshare, setpriv");
        return Sandbox.create(LIMITS, 2, Isolation.USER_NAMESPACES, NOBODY, parent);
    }
}

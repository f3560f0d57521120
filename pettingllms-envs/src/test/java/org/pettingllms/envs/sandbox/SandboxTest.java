package org.pettingllms.envs.sandbox;

/** The sandbox contract on the isolation a trainer gets on this machine. */
class SandboxTest extends SandboxContract {
    @Override
    Sandbox open() {
        return Sandbox.create(LIMITS, 2);
    }
}

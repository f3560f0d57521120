package org.pettingllms.envs.sandbox;

/** The sandbox itself could not run (no interpreter, a failed setup): an infrastructure error, not the program's. */
public final class SandboxException extends RuntimeException {
    public SandboxException(String message) {
        super(message);
    }

    public SandboxException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.pettingllms.core.config;

/** A bad run configuration: the message names the key path (and file) and what was expected. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}

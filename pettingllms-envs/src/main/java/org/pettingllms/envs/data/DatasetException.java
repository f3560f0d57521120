package org.pettingllms.envs.data;

/** A dataset file or row that cannot be used; the message names the file, the line (or row) and the field. */
public final class DatasetException extends RuntimeException {
    public DatasetException(String message) {
        super(message);
    }

    public DatasetException(String message, Throwable cause) {
        super(message, cause);
    }
}

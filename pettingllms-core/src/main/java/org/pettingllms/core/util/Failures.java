package org.pettingllms.core.util;

import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/** What a task run on another thread threw, thrown again on the thread that waited for it. */
public final class Failures {
    private Failures() {}

    /**
     * The cause of {@code e} as the waiting thread should see it: an unchecked exception or an error as itself (so
     * callers catch what the task threw), a checked one wrapped by {@code wrap}. Use as {@code throw rethrow(...)}.
     */
    public static RuntimeException rethrow(ExecutionException e, Function<Throwable, RuntimeException> wrap) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (cause instanceof RuntimeException re) {
            return re;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return wrap.apply(cause);
    }
}

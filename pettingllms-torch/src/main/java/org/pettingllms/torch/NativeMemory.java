package org.pettingllms.torch;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives freed native memory back to the system. PyTorch's CPU tensors come from the C library's malloc; glibc
 * serves blocks below its mmap threshold from heaps that it rarely shrinks, and it raises that threshold (up to
 * 32 MiB) each time a larger block is freed, so after the first training update most activations live in those
 * heaps: their freed pages stay resident, scattered between live blocks, and resident memory ratchets up to the
 * worst mix of sizes the process has seen. {@code malloc_trim(0)} returns every whole free page of every heap to the
 * system (glibc 2.8 and later). The learner calls it between phases (before a step's rollouts, before its update):
 * milliseconds each, where a small fixed mmap threshold (MALLOC_MMAP_THRESHOLD_) would fault in fresh pages for
 * every large tensor and cost far more time. Elsewhere (another C library) this does nothing.
 */
public final class NativeMemory {
    private static final Logger LOG = LoggerFactory.getLogger(NativeMemory.class);
    private static final CLibrary LIBC = load();

    private NativeMemory() {}

    /** glibc's malloc_trim. */
    interface CLibrary extends Library {
        int malloc_trim(long pad);
    }

    private static CLibrary load() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                || Boolean.getBoolean("pettingllms.noMallocTrim")) {
            return null;
        }
        try {
            CLibrary c = Native.load("c", CLibrary.class);
            c.malloc_trim(0); // fails here, once, where the C library has no malloc_trim (musl)
            return c;
        } catch (LinkageError | RuntimeException e) {
            LOG.debug("malloc_trim unavailable: freed native memory stays with the allocator ({})", e.toString());
            return null;
        }
    }

    /** Whether {@link #trim} gives memory back on this system. */
    public static boolean available() {
        return LIBC != null;
    }

    /** Returns the allocator's free pages to the system; true when the C library released any. */
    public static boolean trim() {
        return LIBC != null && LIBC.malloc_trim(0) == 1;
    }
}

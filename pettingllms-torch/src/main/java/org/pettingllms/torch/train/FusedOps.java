package org.pettingllms.torch.train;

import ai.djl.ndarray.NDArray;
import ai.djl.pytorch.engine.PtNDArray;
import java.util.Collection;
import org.pettingllms.torch.Torch;

/**
 * Multi-tensor optimizer calls: one native call per optimizer step through PyTorch's {@code _foreach_} kernels,
 * where the stock path makes one or two calls per tensor (on a GPU each of those launches about ten small kernels:
 * 310 tensors at the Qwen3-0.6B shape). They live in the project's patch of DJL's JNI
 * ({@code scripts/gpu/djl-fused.patch}, built by {@code scripts/gpu/run} against the machine's libtorch); DJL's
 * prebuilt JNI, which the Maven build uses, lacks them, and then {@link #available()} is false and the callers take
 * their per-tensor path, which computes the same numbers ({@code FusedOpsTest}). {@code -Dpettingllms.fusedOps=false}
 * turns them off.
 */
public final class FusedOps {
    private static final boolean AVAILABLE = probe();

    /** A test seam: false makes {@link #available()} false, so that a test can run the per-tensor path beside. */
    static volatile boolean enabled = true;

    private FusedOps() {}

    private static boolean probe() {
        if (!Boolean.parseBoolean(System.getProperty("pettingllms.fusedOps", "true"))) {
            return false;
        }
        Torch.engine(); // loads DJL's JNI, where the functions are if it was built with the patch
        try {
            return version() == 1;
        } catch (UnsatisfiedLinkError e) {
            return false;
        }
    }

    /** Whether the JNI in use has the multi-tensor calls. */
    public static boolean available() {
        return AVAILABLE && enabled;
    }

    /**
     * AdamW over every tensor at once, as {@link AdamW#update} computes it per tensor (the gradients are scaled in
     * place, not zeroed): {@code g *= gradScale; p -= p lr wd; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
     * p -= m lrT / (sqrt(v) + epsT)}.
     */
    static void adamW(
            Collection<NDArray> params,
            Collection<NDArray> grads,
            Collection<NDArray> means,
            Collection<NDArray> variances,
            float lr,
            float lrT,
            float weightDecay,
            float beta1,
            float beta2,
            float epsT,
            float gradScale) {
        adamW(
                handles(params),
                handles(grads),
                handles(means),
                handles(variances),
                lr,
                lrT,
                weightDecay,
                beta1,
                beta2,
                epsT,
                gradScale);
    }

    /** Sets every tensor to zero in one call. */
    public static void zero(Collection<NDArray> tensors) {
        zero(handles(tensors));
    }

    /** The L2 norm of each tensor, in order: one multi-tensor reduction and one copy to the host. */
    public static float[] norms(Collection<NDArray> tensors) {
        return norms(handles(tensors));
    }

    private static long[] handles(Collection<NDArray> arrays) {
        long[] out = new long[arrays.size()];
        int i = 0;
        for (NDArray a : arrays) {
            out[i++] = ((PtNDArray) a).getHandle();
        }
        return out;
    }

    private static native int version();

    private static native void adamW(
            long[] params,
            long[] grads,
            long[] means,
            long[] variances,
            float lr,
            float lrT,
            float weightDecay,
            float beta1,
            float beta2,
            float epsT,
            float gradScale);

    private static native float[] norms(long[] tensors);

    private static native void zero(long[] tensors);
}

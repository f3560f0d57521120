package org.pettingllms.torch;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Starts the PyTorch engine for the whole process. Offline by construction: the native libraries come from the
 * {@code pytorch-native-*} jar on the class path, and DJL is told never to download anything.
 */
public final class Torch {
    private static volatile Engine engine;

    private Torch() {}

    public static Engine engine() {
        Engine e = engine;
        if (e == null) {
            synchronized (Torch.class) {
                if (engine == null) {
                    System.setProperty("ai.djl.offline", "true");
                    try {
                        engine = Engine.getEngine("PyTorch");
                    } catch (RuntimeException ex) {
                        throw new IllegalStateException(
                                "cannot start the PyTorch engine: " + ex.getMessage()
                                        + ". The pytorch-native-cpu (or -cu128) jar must be on the class path.",
                                ex);
                    }
                }
                e = engine;
            }
        }
        return e;
    }

    /** Whether this thread's PyTorch ops record gradients (PyTorch's grad mode is per OS thread). */
    public static boolean recordingGradients() {
        engine();
        return JniUtils.isGradMode();
    }

    /** Turns gradient recording off for this thread until the returned scope closes (PyTorch's no_grad). */
    public static NoGradients noGradients() {
        engine();
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(false);
        return () -> JniUtils.setGradMode(was);
    }

    /**
     * Sets the PyTorch intra-op threads of the calling thread only. PyTorch's setter also changes the process-wide
     * count that every thread reads at its first parallel op, so the count is fixed for this thread first (reading
     * it does that) and the process-wide one is put back from a short-lived thread: a learner thread that starts
     * later still gets every core, and its numbers do not depend on whether a sampler started before it.
     */
    public static synchronized void setThreadsOfThisThread(int threads) {
        engine();
        int processWide = JniUtils.getNumThreads(); // fixes this thread's count at the old value
        JniUtils.setNumThreads(threads);
        Thread restore =
                Thread.ofPlatform().name("pettingllms-threads").start(() -> JniUtils.setNumThreads(processWide));
        try {
            restore.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code body} on a new platform thread with one PyTorch intra-op thread and returns when it has ended,
     * rethrowing what it threw. Two intra-op threads sum partial results in an order that depends on timing, so a
     * gradient differs in its last bits from run to run, and AdamW's first steps (about lr * sign(g) per weight)
     * make such bits in near-zero gradients into weight differences of the learning rate's size. On one thread two
     * runs of the same training in one learner agreed bit for bit (EmbeddedResumeTest): for comparing trainings.
     */
    public static void runOnOneThread(Body body) throws Exception {
        var failure = new AtomicReference<Throwable>();
        Thread t = Thread.ofPlatform().name("pettingllms-one-thread").start(() -> {
            setThreadsOfThisThread(1);
            try {
                body.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        Throwable f = failure.get();
        if (f instanceof Exception e) {
            throw e;
        } else if (f instanceof Error e) {
            throw e;
        } else if (f != null) {
            throw new IllegalStateException(f);
        }
    }

    /** Work for {@link #runOnOneThread}. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /**
     * A 0-dim float32 tensor holding {@code value}, in memory that PyTorch allocated and owns. Every scalar that can
     * enter a graph with gradients must come from here, never from DJL's arithmetic with a Java number
     * ({@code a.mul(0.5)}, {@code a.div(n)}, {@code a.sub(1)}) or {@code manager.create(number)}: those put the number
     * in a Java direct buffer that PyTorch reads in place (no copy), and the arithmetic closes that tensor right after
     * the op. Autograd keeps it for the backward pass (d(a w)/da = w), but the Java buffer is freed once the garbage
     * collector finds it unreachable, so a backward that runs after a collection reads reused memory: gradients
     * scaled by garbage with the loss unchanged, or a corrupted heap (GraphScalarLifetimeTest).
     */
    public static NDArray scalar(NDManager manager, double value) {
        return manager.full(new Shape(), (float) value);
    }

    /** A scope without gradient recording. */
    public interface NoGradients extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * The device to run on: {@code cpu}, {@code gpu} / {@code cuda}, or {@code gpu:N}. A GPU that this process's
     * PyTorch cannot see (the CPU build of the native library, or a machine without one) is refused here, in one
     * line, rather than at the first tensor.
     */
    public static Device device(String name) {
        engine();
        String n = name.trim().toLowerCase();
        if (n.equals("cpu")) {
            return Device.cpu();
        }
        int index;
        if (n.equals("gpu") || n.equals("cuda")) {
            index = 0;
        } else if (n.matches("(gpu|cuda):\\d{1,3}")) {
            index = Integer.parseInt(n.substring(n.indexOf(':') + 1));
        } else {
            throw new IllegalArgumentException("unknown device '" + name + "'; expected cpu, gpu or gpu:N");
        }
        int gpus = engine.getGpuCount();
        if (index >= gpus) {
            throw new IllegalArgumentException("device '" + name + "' asks for CUDA GPU " + index + ", but PyTorch "
                    + engine.getVersion() + " here sees " + (gpus == 0 ? "none" : gpus + "")
                    + (gpus == 0
                            ? " (this is the CPU build of its native library, or the machine has no GPU:"
                                    + " use cpu, or on a GPU machine build with -Pcuda or use scripts/gpu/run)"
                            : ""));
        }
        return Device.gpu(index);
    }

    /** The type weights are held in: {@code fp32} or {@code bf16} (also spelled float32, bfloat16). */
    public static DataType dataType(String name) {
        DataType type = switch (name.trim().toLowerCase()) {
            case "fp32", "float32" -> DataType.FLOAT32;
            case "bf16", "bfloat16" -> DataType.BFLOAT16;
            default -> throw new IllegalArgumentException("unknown dtype '" + name + "'; expected fp32 or bf16");
        };
        requireSupported(type);
        return type;
    }

    /** The file that a JNI library built with bfloat16 has beside it (scripts/gpu/run writes it). */
    public static final String BF16_MARKER = "djl_torch.bf16";

    /**
     * Whether the PyTorch JNI library in use maps bfloat16. DJL's prebuilt JNI (0.34) maps no bfloat16 in either
     * direction, and asking it for one aborts the whole process from native code (a bare C++ {@code throw;}), so
     * this is decided before any tensor is made: by the marker that scripts/gpu/run leaves beside a JNI
     * library it built from DJL's sources with scripts/gpu/djl-bf16.patch, in the folder PYTORCH_LIBRARY_PATH names.
     */
    public static boolean bf16Supported() {
        String dir = System.getenv("PYTORCH_LIBRARY_PATH");
        return dir != null && Files.isRegularFile(Path.of(dir, BF16_MARKER));
    }

    /** Refuses, in one line, a type the JNI library in use cannot hold (see {@link #bf16Supported}). */
    public static void requireSupported(DataType type) {
        if (type == DataType.BFLOAT16 && !bf16Supported()) {
            throw new IllegalArgumentException("bf16 needs DJL's PyTorch JNI built with bfloat16, and the one in use"
                    + " is DJL's prebuilt library, which has none: scripts/gpu/run builds one against the machine's"
                    + " libtorch (scripts/gpu/README.md), or use fp32");
        }
    }
}

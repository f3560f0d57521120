package org.pettingllms.torch;

import ai.djl.Device;
import ai.djl.engine.Engine;

/**
 * Starts the PyTorch engine for the whole process. Offline by construction: the native libraries come from the
 * {@code pytorch-native-*} jar on the class path, and DJL is told never to download anything.
 */
public final class Torch {
    private static volatile Engine engine;

    private Torch() {
    }

    public static Engine engine() {
        Engine e = engine;
        if (e == null) {
            synchronized (Torch.class) {
                if (engine == null) {
                    System.setProperty("ai.djl.offline", "true");
                    try {
                        Engine started = Engine.getEngine("PyTorch");
                        // PyTorch fixes a thread's OpenMP thread count at its first parallel op, from a process-wide
                        // value that a later setThreads (the sampler's) changes: run one here, so that the thread
                        // that started the engine (the one that trains) keeps every core
                        try (var m = started.newBaseManager(Device.cpu())) {
                            m.ones(new ai.djl.ndarray.types.Shape(1 << 20)).add(1f).close();
                        }
                        engine = started;
                    } catch (RuntimeException ex) {
                        throw new IllegalStateException("cannot start the PyTorch engine: " + ex.getMessage()
                                + ". The pytorch-native-cpu (or -cu128) jar must be on the class path.", ex);
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
        return ai.djl.pytorch.jni.JniUtils.isGradMode();
    }

    /** Turns gradient recording off for this thread until the returned scope closes (PyTorch's no_grad). */
    public static NoGradients noGradients() {
        engine();
        boolean was = ai.djl.pytorch.jni.JniUtils.isGradMode();
        ai.djl.pytorch.jni.JniUtils.setGradMode(false);
        return () -> ai.djl.pytorch.jni.JniUtils.setGradMode(was);
    }

    /**
     * Sets the PyTorch intra-op threads of the calling thread (OpenMP's thread count is per calling thread; the
     * thread that started the engine keeps its own).
     */
    public static void setThreads(int threads) {
        engine();
        ai.djl.pytorch.jni.JniUtils.setNumThreads(threads);
    }

    /** A scope without gradient recording. */
    public interface NoGradients extends AutoCloseable {
        @Override
        void close();
    }

    /** The device to run on: {@code cpu}, {@code gpu} / {@code cuda}, or {@code gpu:N}. */
    public static Device device(String name) {
        engine();
        String n = name.trim().toLowerCase();
        if (n.equals("cpu")) {
            return Device.cpu();
        }
        if (n.equals("gpu") || n.equals("cuda")) {
            return Device.gpu();
        }
        if (n.startsWith("gpu:") || n.startsWith("cuda:")) {
            return Device.gpu(Integer.parseInt(n.substring(n.indexOf(':') + 1)));
        }
        throw new IllegalArgumentException("unknown device '" + name + "'; expected cpu, gpu or gpu:N");
    }
}

package org.pettingllms.torch;

import ai.djl.Device;
import ai.djl.util.cuda.CudaUtils;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The peak GPU memory in use while it is open, as the driver reports it (cudaMemGetInfo: everything the process
 * holds, PyTorch's cached blocks and the CUDA context included, so an upper bound of what the tensors needed),
 * sampled every 20 ms on a daemon thread. PyTorch's own peak of allocated bytes is not reachable through DJL's
 * bindings. On a CPU device, or where the CUDA runtime cannot be queried, it reports nothing.
 */
public final class GpuMemory implements AutoCloseable {
    private final AtomicLong peak = new AtomicLong(-1);
    private final Thread sampler;
    private volatile boolean open = true;

    private GpuMemory(Device device) {
        if (!device.isGpu()) {
            sampler = null;
            return;
        }
        sampler = Thread.ofPlatform().daemon().name("gpu-memory").start(() -> {
            try {
                while (open) {
                    long used = CudaUtils.getGpuMemory(device).getCommitted();
                    peak.accumulateAndGet(used, Math::max);
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | LinkageError e) {
                // no CUDA runtime to ask: the peak stays unknown
            }
        });
    }

    /** Starts sampling {@code device}'s memory in use (nothing for a CPU). */
    public static GpuMemory sample(Device device) {
        return new GpuMemory(device);
    }

    /** The largest amount in use seen so far, in GiB; empty when nothing could be read. */
    public Optional<Double> peakGib() {
        long p = peak.get();
        return p < 0 ? Optional.empty() : Optional.of(p / (double) (1L << 30));
    }

    @Override
    public void close() {
        open = false;
        if (sampler != null) {
            sampler.interrupt();
        }
    }
}

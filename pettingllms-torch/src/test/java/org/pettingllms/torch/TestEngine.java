package org.pettingllms.torch;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.io.IOException;
import java.nio.file.Path;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.model.DecoderModel;

/**
 * Where the engine tests (tagged {@code engine}) run: {@code -Dpettingllms.test.device=gpu} puts their models on a
 * GPU (scripts/gpu/run does), {@code -Dpettingllms.test.dtype=bf16} holds the weights of those that follow it in
 * bfloat16. Unset: the CPU and float32, as {@code ./build verify} runs them.
 */
public final class TestEngine {
    private TestEngine() {}

    public static Device device() {
        return Torch.device(System.getProperty("pettingllms.test.device", "cpu"));
    }

    public static DataType dtype() {
        return Torch.dataType(System.getProperty("pettingllms.test.dtype", "fp32"));
    }

    /** A model directory on the test device, in float32. */
    public static DecoderModel load(Path dir) throws IOException {
        return ModelFamilies.load(dir, device(), DataType.FLOAT32).decoder();
    }

    /** A model directory on the test device, held as {@code dtype}. */
    public static DecoderModel load(Path dir, DataType dtype) throws IOException {
        return ModelFamilies.load(dir, device(), dtype).decoder();
    }
}

package org.pettingllms.torch.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.model.DecoderModel;

/**
 * The device's greedy and untruncated draws ({@link Generator#picksOnDevice}, what a GPU runs) give the host path's
 * tokens and logprobs for the same seeds: greedy rows and temperature 1 and 0.7 rows, sharing prompts or not.
 */
@Tag("engine")
class DeviceSamplingTest {
    @AfterEach
    void back() {
        Generator.sampleOnDeviceAlways = false;
    }

    static List<Generator.Result> generate(DecoderModel model, boolean onDevice) {
        Generator.sampleOnDeviceAlways = onDevice;
        List<Generator.Request> reqs = new ArrayList<>();
        int[][] prompts = {{1, 17, 42, 5}, {1, 64, 2, 50, 50}, {1, 9}};
        for (int i = 0; i < 12; i++) {
            double t = i % 3 == 0 ? 0 : i % 3 == 1 ? 1.0 : 0.7;
            reqs.add(new Generator.Request(prompts[i % 3], null, t, 0, 1.0, 24, new int[0], null, 100 + i));
        }
        return Generator.generate(model, reqs);
    }

    @Test
    void deviceDrawsAreTheHostDraws() throws Exception {
        try (DecoderModel model = TestEngine.load(SharedFiles.fixture("qwen3-tiny"))) {
            List<Generator.Result> host = generate(model, false);
            List<Generator.Result> device = generate(model, true);
            for (int i = 0; i < host.size(); i++) {
                assertThat(device.get(i).tokens())
                        .as("row %d", i)
                        .containsExactly(host.get(i).tokens());
                assertThat(device.get(i).logprobs())
                        .as("row %d", i)
                        .containsExactly(host.get(i).logprobs());
            }
            // the draws are draws: two temperature-1 rows of one prompt with other seeds differ
            assertThat(host.get(4).tokens()).isNotEqualTo(host.get(1).tokens());
        }
    }
}

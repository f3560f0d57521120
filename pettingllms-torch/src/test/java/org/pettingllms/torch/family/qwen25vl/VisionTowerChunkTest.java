package org.pettingllms.torch.family.qwen25vl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.pettingllms.testkit.SharedFiles;
import org.pettingllms.torch.TestEngine;
import org.pettingllms.torch.family.ModelFamilies;
import org.pettingllms.torch.image.RgbImage;
import org.pettingllms.torch.io.SafeTensors;

/** Attention over query chunks (what bounds a large image's memory) gives the fixture's image embeddings. */
@Tag("engine")
class VisionTowerChunkTest {
    static final Path DIR = SharedFiles.fixture("qwen25vl-tiny");

    @Test
    void chunkedQueriesGiveTheSameEmbeddings() throws Exception {
        try (Qwen25VlModel model = (Qwen25VlModel) ModelFamilies.load(DIR, TestEngine.device(), DataType.FLOAT32)) {
            ImageProcessor.Patches patches = model.processor()
                    .patches(RgbImage.decode(Files.readAllBytes(DIR.resolve("image.png")), "image.png"));
            // 48 patches: windows of 16 and the full block's 48 rows in chunks of 5 (uneven on purpose)
            VisionTower chunked = new VisionTower(
                    model.config().vision(),
                    model.visionParameters(),
                    model.decoder().manager(),
                    5);
            float[] want = SafeTensors.readFloats(DIR.resolve("golden.safetensors"))
                    .get("image_embeds")
                    .data();
            try (NDManager scope = model.decoder().manager().newSubManager()) {
                NDArray pixels = scope.create(patches.values(), new ai.djl.ndarray.types.Shape(patches.rows(), 1176));
                float[] got = chunked.forward(
                                pixels, List.of(new int[] {patches.gridT(), patches.gridH(), patches.gridW()}))
                        .toFloatArray();
                double worst = 0;
                for (int i = 0; i < want.length; i++) {
                    worst = Math.max(worst, Math.abs(got[i] - want[i]));
                }
                assertThat(worst).isLessThanOrEqualTo(1e-4);
            }
        }
    }
}

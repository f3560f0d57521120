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

/**
 * The tower's two ways of running attention give the fixture's image embeddings: segments in query chunks (what
 * bounds a large image's memory) and many segments batched with their padding masked (what makes a step's hundreds
 * of windows cheap), and images batched together give what each gives alone.
 */
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

    @Test
    void imagesOfDifferentSizesBatchedGiveWhatEachGivesAlone() throws Exception {
        try (Qwen25VlModel model = (Qwen25VlModel) ModelFamilies.load(DIR, TestEngine.device(), DataType.FLOAT32)) {
            ImageProcessor.Patches fixture = model.processor()
                    .patches(RgbImage.decode(Files.readAllBytes(DIR.resolve("image.png")), "image.png"));
            ImageProcessor.Patches wide = model.processor().patches(RgbImage.of(noise(150, 70, 7)));
            ImageProcessor.Patches small = model.processor().patches(RgbImage.of(noise(60, 60, 8)));
            List<ImageProcessor.Patches> all = List.of(wide, fixture, small);
            assertThat(all.stream().map(ImageProcessor.Patches::rows).distinct())
                    .hasSize(3);
            VisionTower tower = new VisionTower(
                    model.config().vision(),
                    model.visionParameters(),
                    model.decoder().manager());
            try (NDManager scope = model.decoder().manager().newSubManager()) {
                float[] together = tower.forward(pixels(scope, all), grids(all)).toFloatArray();
                int at = 0;
                for (ImageProcessor.Patches p : all) {
                    float[] alone = tower.forward(pixels(scope, List.of(p)), grids(List.of(p)))
                            .toFloatArray();
                    for (int i = 0; i < alone.length; i++) {
                        assertThat(together[at + i]).isCloseTo(alone[i], org.assertj.core.data.Offset.offset(1e-5f));
                    }
                    at += alone.length;
                }
                assertThat(at).isEqualTo(together.length);
            }
        }
    }

    private static NDArray pixels(NDManager scope, List<ImageProcessor.Patches> images) {
        int rows = images.stream().mapToInt(ImageProcessor.Patches::rows).sum();
        float[] all = new float[rows * 1176];
        int at = 0;
        for (ImageProcessor.Patches p : images) {
            System.arraycopy(p.values(), 0, all, at, p.values().length);
            at += p.values().length;
        }
        return scope.create(all, new ai.djl.ndarray.types.Shape(rows, 1176));
    }

    private static List<int[]> grids(List<ImageProcessor.Patches> images) {
        return images.stream()
                .map(p -> new int[] {p.gridT(), p.gridH(), p.gridW()})
                .toList();
    }

    private static java.awt.image.BufferedImage noise(int w, int h, long seed) {
        java.util.Random random = new java.util.Random(seed);
        var img = new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                img.setRGB(x, y, random.nextInt(1 << 24));
            }
        }
        return img;
    }
}

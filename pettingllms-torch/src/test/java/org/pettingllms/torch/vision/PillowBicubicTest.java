package org.pettingllms.torch.vision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.pettingllms.torch.family.qwen25vl.ImageProcessor;
import org.pettingllms.torch.image.PillowBicubic;
import org.pettingllms.torch.image.RgbImage;

/**
 * The image resize against Pillow's own output: {@code scripts/vision/resize_check.py} resized noise, a gradient
 * and a board of flat cells (sides not multiples of 28, up and down) to the sizes transformers' smart_resize gives,
 * with {@code Image.BICUBIC}; the engine must give the same sizes and the same bytes.
 */
class PillowBicubicTest {
    static final String DIR = "/pillow-bicubic/";

    @Test
    void sizesAndPixelsEqualPillows() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(resource("cases.json")).get("cases");
        assertThat(cases).hasSizeGreaterThanOrEqualTo(6);
        List<String> checked = new ArrayList<>();
        for (JsonNode c : cases) {
            String name = c.get("name").asText();
            RgbImage in = image(name + ".png");
            RgbImage want = image(name + ".resized.png");
            ImageProcessor p = new ImageProcessor(
                    14,
                    2,
                    2,
                    c.get("min_pixels").asLong(),
                    c.get("max_pixels").asLong(),
                    new float[] {0.5f, 0.5f, 0.5f},
                    new float[] {0.5f, 0.5f, 0.5f});
            int[] size = p.smartResize(in.height(), in.width());
            assertThat(size)
                    .as(name)
                    .containsExactly(
                            c.get("resized_height").asInt(),
                            c.get("resized_width").asInt());
            assertThat(in.width() % 28 != 0 || in.height() % 28 != 0).as(name).isTrue();
            RgbImage got = PillowBicubic.resize(in, size[1], size[0]);
            int worst = 0;
            for (int i = 0; i < got.rgb().length; i++) {
                for (int s = 0; s < 24; s += 8) {
                    worst = Math.max(worst, Math.abs(((got.rgb()[i] >> s) & 0xFF) - ((want.rgb()[i] >> s) & 0xFF)));
                }
            }
            assertThat(worst)
                    .as(name + ": largest channel difference from Pillow")
                    .isZero();
            checked.add(name);
        }
        assertThat(checked).contains("noise-up", "noise-down", "board-down");
    }

    @Test
    void smartResizeRoundsHalfToEvenAsPython() {
        ImageProcessor p = ImageProcessor.defaults(14, 2, 2);
        // 70 / 28 = 2.5: Python's round gives 2 (Math.round would give 3 and an 84 x 84 image)
        assertThat(p.smartResize(70, 70)).containsExactly(56, 56);
        // 98 / 28 = 3.5 rounds to 4
        assertThat(p.smartResize(98, 98)).containsExactly(112, 112);
        // under min_pixels (3136): scaled up by sqrt(3136 / (20 * 30)), each side's ceiling
        assertThat(p.smartResize(20, 30)).containsExactly(56, 84);
        assertThat(p.tokens(20, 30)).isEqualTo(6);
        assertThatThrownBy(() -> p.smartResize(1, 201)).hasMessageContaining("aspect ratio");
    }

    @Test
    void sameSizeIsACopyAndTransparencyLiesOnWhite() {
        RgbImage img = new RgbImage(2, 1, new int[] {0x102030, 0xFFFFFF});
        assertThat(PillowBicubic.resize(img, 2, 1).rgb()).containsExactly(img.rgb());
        java.awt.image.BufferedImage argb =
                new java.awt.image.BufferedImage(1, 1, java.awt.image.BufferedImage.TYPE_INT_ARGB);
        argb.setRGB(0, 0, 0x00000000); // fully transparent black
        assertThat(RgbImage.of(argb).rgb()).containsExactly(0xFFFFFF);
        assertThatThrownBy(() -> RgbImage.decode(new byte[] {1, 2, 3}, "messages[0].image"))
                .hasMessageContaining("messages[0].image");
    }

    private static InputStream resource(String name) {
        return PillowBicubicTest.class.getResourceAsStream(DIR + name);
    }

    private static RgbImage image(String name) throws IOException {
        try (InputStream in = resource(name)) {
            return RgbImage.decode(in.readAllBytes(), name);
        }
    }
}

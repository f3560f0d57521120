package org.pettingllms.core.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ImageTest {
    static final byte[] BYTES = {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3};

    @Test
    void imagesAreEqualByTheirBytesSoPromptsWithTheSamePictureAreEqual() {
        byte[] copy = BYTES.clone();
        Image a = Image.png(BYTES);
        Image b = Image.png(copy);
        copy[4] = 9; // the image keeps its own copy
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Image.png(copy));
        Prompt p = new Prompt(List.of(ChatMessage.user("board?", List.of(a))), PromptStyle.CHAT);
        Prompt q = new Prompt(List.of(ChatMessage.user("board?", List.of(b))), PromptStyle.CHAT);
        assertThat(p).isEqualTo(q);
        assertThat(p).isNotEqualTo(new Prompt(List.of(ChatMessage.user("board?")), PromptStyle.CHAT));
        assertThat(p.images()).containsExactly(a);
    }

    @Test
    void dataUrlsRoundTripAndRemoteUrlsAreRefusedNamingTheField() {
        Image a = Image.png(BYTES);
        assertThat(Image.fromDataUrl(a.toDataUrl(), "x")).isEqualTo(a);
        assertThat(Image.fromDataUrl("data:image/jpeg;base64,AQID", "x").mediaType())
                .isEqualTo("image/jpeg");
        assertThatThrownBy(() -> Image.fromDataUrl("https://example.org/a.png", "messages[0].content[1].image_url"))
                .hasMessageStartingWith("messages[0].content[1].image_url: ")
                .hasMessageContaining("remote URL");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/gif;base64,AQID", "f"))
                .hasMessageContaining("image/gif");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/png;base64,@@@", "f"))
                .hasMessageStartingWith("f: ");
        assertThatThrownBy(() -> Image.fromDataUrl("data:image/png,AQID", "f")).hasMessageContaining("base64");
    }

    static byte[] encoded(String format, int w, int h) throws Exception {
        java.awt.image.BufferedImage img =
                new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertThat(javax.imageio.ImageIO.write(img, format, out)).isTrue();
        return out.toByteArray();
    }

    @Test
    void theSizeIsReadFromThePngOrJpegHeaderAndALargeOneIsRefusedNamingTheField() throws Exception {
        assertThat(Image.checkedDimensions(encoded("png", 37, 23), "x")).isEqualTo(new Image.Dimensions(37, 23));
        assertThat(Image.checkedDimensions(encoded("jpeg", 37, 23), "x")).isEqualTo(new Image.Dimensions(37, 23));
        // a JPEG's frame header after other segments (its JFIF header, tables)
        byte[] jpeg = encoded("jpeg", 640, 480);
        assertThat(Image.dimensions(jpeg)).isEqualTo(new Image.Dimensions(640, 480));
        byte[] huge = encoded("png", 2, 2);
        java.nio.ByteBuffer.wrap(huge).putInt(16, 20000).putInt(20, 20000); // the header says 20000 x 20000
        assertThatThrownBy(() -> Image.checkedDimensions(huge, "messages[0].content[0].image_url"))
                .hasMessageStartingWith("messages[0].content[0].image_url: the image is 20000 x 20000 pixels");
        byte[] wide = encoded("png", 2, 2);
        java.nio.ByteBuffer.wrap(wide).putInt(16, 100_000).putInt(20, 1); // few pixels, one side too long
        assertThatThrownBy(() -> Image.checkedDimensions(wide, "x")).hasMessageContaining("100000 x 1");
        assertThatThrownBy(() -> Image.checkedDimensions(BYTES, "x")).hasMessageContaining("not a PNG or JPEG");
        // a 1 x 1 frame ended before any scan ("tables only"), then another image: the decoder takes the second
        // (which could declare 20000 x 20000), so the header check may not take the first
        byte[] sof1 = {(byte) 0xFF, (byte) 0xC0, 0, 11, 8, 0, 1, 0, 1, 1, 1, 0x11, 0};
        byte[] tricked = java.nio.ByteBuffer.allocate(2 + sof1.length + 2 + jpeg.length)
                .put(new byte[] {(byte) 0xFF, (byte) 0xD8})
                .put(sof1)
                .put(new byte[] {(byte) 0xFF, (byte) 0xD9})
                .put(jpeg)
                .array();
        assertThatThrownBy(() -> Image.checkedDimensions(tricked, "x")).hasMessageContaining("not a PNG or JPEG");
        assertThatThrownBy(() -> Image.checkedDimensions(new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF}, "x"))
                .hasMessageContaining("not a PNG or JPEG");
    }
}

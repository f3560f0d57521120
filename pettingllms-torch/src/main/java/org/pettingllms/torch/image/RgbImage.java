package org.pettingllms.torch.image;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.pettingllms.core.data.Image;

/**
 * An 8-bit RGB image, row-major, one {@code 0xRRGGBB} int per pixel: what an image processor starts from. Images
 * with transparency are laid on white first, as transformers' {@code convert_to_rgb} does.
 */
public record RgbImage(int width, int height, int[] rgb) {
    public RgbImage {
        if (width <= 0 || height <= 0 || rgb.length != width * height) {
            throw new IllegalArgumentException("an image of " + width + " x " + height + " needs " + width * height
                    + " pixels, got " + rgb.length);
        }
    }

    /**
     * PNG or JPEG bytes, decoded with ImageIO once their header's size passes {@link Image#checkedDimensions}
     * (the decoder allocates the whole raster the header declares); anything else fails naming {@code what}.
     */
    public static RgbImage decode(byte[] bytes, String what) {
        Image.checkedDimensions(bytes, what);
        BufferedImage img;
        try {
            img = ImageIO.read(new ByteArrayInputStream(bytes));
        } catch (IOException e) {
            throw new IllegalArgumentException(what + ": not a readable image (" + e.getMessage() + ")", e);
        }
        if (img == null) {
            throw new IllegalArgumentException(what + ": not a PNG or JPEG image (" + bytes.length + " bytes)");
        }
        return of(img);
    }

    public static RgbImage of(BufferedImage img) {
        int w = img.getWidth();
        int h = img.getHeight();
        int[] argb = img.getRGB(0, 0, w, h, null, 0, w);
        boolean alpha = img.getColorModel().hasAlpha();
        int[] rgb = new int[argb.length];
        for (int i = 0; i < argb.length; i++) {
            int p = argb[i];
            if (alpha) {
                // Image.alpha_composite over opaque white: c * a + 255 * (1 - a), rounded
                int a = p >>> 24;
                int r = over((p >> 16) & 0xFF, a);
                int g = over((p >> 8) & 0xFF, a);
                int b = over(p & 0xFF, a);
                rgb[i] = (r << 16) | (g << 8) | b;
            } else {
                rgb[i] = p & 0xFFFFFF;
            }
        }
        return new RgbImage(w, h, rgb);
    }

    private static int over(int c, int a) {
        return (c * a + 255 * (255 - a) + 127) / 255;
    }

    /** Channel {@code c} (0 red, 1 green, 2 blue) of pixel (x, y). */
    public int channel(int x, int y, int c) {
        return (rgb[y * width + x] >> (16 - 8 * c)) & 0xFF;
    }

    public BufferedImage toBufferedImage() {
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        img.setRGB(0, 0, width, height, rgb, 0, width);
        return img;
    }
}

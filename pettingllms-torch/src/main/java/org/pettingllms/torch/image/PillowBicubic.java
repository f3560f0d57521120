package org.pettingllms.torch.image;

/**
 * Pillow's {@code Image.resize(size, Image.BICUBIC)} on an 8-bit RGB image, bit for bit: the same cubic kernel
 * (a = -0.5, support 2, widened by the scale when shrinking, so every source pixel under an output pixel counts),
 * the same weights rounded to 22-bit fixed point, and the same two passes (horizontal into 8-bit rows, then
 * vertical), each rounding and clipping to 0..255 as {@code libImaging/Resample.c} does. The Qwen2-VL image
 * processor resizes with Pillow, so the pixels a model was trained on are Pillow's; {@code
 * scripts/vision/resize_check.py} writes Pillow's outputs for the test that holds this to them.
 */
public final class PillowBicubic {
    private static final int PRECISION_BITS = 32 - 8 - 2;

    private PillowBicubic() {}

    /** {@code image} resized to {@code width} x {@code height}; the same size gives an equal copy, as Pillow. */
    public static RgbImage resize(RgbImage image, int width, int height) {
        if (width <= 0 || height <= 0) {
            throw new IllegalArgumentException("cannot resize to " + width + " x " + height);
        }
        int[] pixels = image.rgb().clone();
        int w = image.width();
        int h = image.height();
        Coefficients vertical = Coefficients.of(h, height);
        if (width != w) {
            // only the source rows the vertical pass reads are resized horizontally, as Pillow does (the result is
            // the same as resizing them all)
            int first = vertical.min[0];
            int last = vertical.min[height - 1] + vertical.count[height - 1];
            pixels = horizontal(pixels, w, first, last, Coefficients.of(w, width), width);
            for (int i = 0; i < height; i++) {
                vertical.min[i] -= first;
            }
            w = width;
        }
        if (height != h) {
            pixels = vertical(pixels, w, vertical, height);
        }
        return new RgbImage(width, height, pixels);
    }

    private static int[] horizontal(int[] in, int inWidth, int firstRow, int lastRow, Coefficients k, int outWidth) {
        int rows = lastRow - firstRow;
        int[] out = new int[outWidth * rows];
        for (int y = 0; y < rows; y++) {
            int base = (y + firstRow) * inWidth;
            for (int x = 0; x < outWidth; x++) {
                int r = 1 << (PRECISION_BITS - 1);
                int g = r;
                int b = r;
                for (int i = 0; i < k.count[x]; i++) {
                    int p = in[base + k.min[x] + i];
                    int c = k.weights[x * k.size + i];
                    r += ((p >> 16) & 0xFF) * c;
                    g += ((p >> 8) & 0xFF) * c;
                    b += (p & 0xFF) * c;
                }
                out[y * outWidth + x] = (clip8(r) << 16) | (clip8(g) << 8) | clip8(b);
            }
        }
        return out;
    }

    private static int[] vertical(int[] in, int width, Coefficients k, int outHeight) {
        int[] out = new int[width * outHeight];
        for (int y = 0; y < outHeight; y++) {
            for (int x = 0; x < width; x++) {
                int r = 1 << (PRECISION_BITS - 1);
                int g = r;
                int b = r;
                for (int i = 0; i < k.count[y]; i++) {
                    int p = in[(k.min[y] + i) * width + x];
                    int c = k.weights[y * k.size + i];
                    r += ((p >> 16) & 0xFF) * c;
                    g += ((p >> 8) & 0xFF) * c;
                    b += (p & 0xFF) * c;
                }
                out[y * width + x] = (clip8(r) << 16) | (clip8(g) << 8) | clip8(b);
            }
        }
        return out;
    }

    private static int clip8(int v) {
        if (v >= (1 << PRECISION_BITS << 8)) {
            return 255;
        }
        return v <= 0 ? 0 : v >> PRECISION_BITS;
    }

    /** Keys cubic convolution with a = -0.5 (Pillow's {@code bicubic_filter}). */
    private static double cubic(double x) {
        double a = -0.5;
        x = Math.abs(x);
        if (x < 1.0) {
            return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
        }
        if (x < 2.0) {
            return (((x - 5) * x + 8) * x - 4) * a;
        }
        return 0.0;
    }

    /**
     * For each output pixel: the first source pixel it reads ({@code min}), how many ({@code count}) and their
     * fixed-point weights ({@code size} slots per output pixel), as Pillow's {@code precompute_coeffs} and
     * {@code normalize_coeffs_8bpc}.
     */
    private record Coefficients(int size, int[] min, int[] count, int[] weights) {
        static Coefficients of(int inSize, int outSize) {
            double scale = (double) inSize / outSize;
            double filterScale = Math.max(scale, 1.0);
            double support = 2.0 * filterScale;
            int size = (int) Math.ceil(support) * 2 + 1;
            int[] min = new int[outSize];
            int[] count = new int[outSize];
            int[] weights = new int[outSize * size];
            double[] k = new double[size];
            for (int xx = 0; xx < outSize; xx++) {
                double center = (xx + 0.5) * scale;
                double ss = 1.0 / filterScale;
                int xmin = Math.max((int) (center - support + 0.5), 0);
                int xmax = Math.min((int) (center + support + 0.5), inSize) - xmin;
                double sum = 0.0;
                for (int x = 0; x < xmax; x++) {
                    k[x] = cubic((x + xmin - center + 0.5) * ss);
                    sum += k[x];
                }
                for (int x = 0; x < xmax; x++) {
                    double v = sum != 0.0 ? k[x] / sum : k[x];
                    // C's (int) cast truncates toward zero: round half away from zero as Pillow writes it
                    weights[xx * size + x] =
                            v < 0 ? (int) (-0.5 + v * (1 << PRECISION_BITS)) : (int) (0.5 + v * (1 << PRECISION_BITS));
                }
                min[xx] = xmin;
                count[xx] = xmax;
            }
            return new Coefficients(size, min, count, weights);
        }
    }
}

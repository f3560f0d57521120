package org.pettingllms.envs.planning;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.pettingllms.core.data.Image;

/**
 * A board drawn as a picture: each cell a flat square of {@link #CELL} pixels in its symbol's colour (the game's
 * {@link Game#colours()}). 28 pixels is one merged token of a Qwen2-VL vision tower (patches of 14 merged 2 x 2), so
 * each cell is one image token. The colours are exact in PNG, so a picture reads back to the board's text
 * ({@link #read}): scripted policies look at the picture the model sees, not at the environment's state.
 */
public final class BoardPicture {
    public static final int CELL = 28;

    private BoardPicture() {}

    /** The board's text (rows of symbols) as a PNG; a symbol without a colour fails naming it. */
    public static Image draw(String boardText, Map<Character, Integer> colours, String game) {
        List<String> rows = Grid.rows(boardText);
        int cols = rows.get(0).length();
        BufferedImage img = new BufferedImage(cols * CELL, rows.size() * CELL, BufferedImage.TYPE_INT_RGB);
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < cols; c++) {
                char symbol = rows.get(r).charAt(c);
                Integer rgb = colours.get(symbol);
                if (rgb == null) {
                    throw new IllegalArgumentException(game + ": no colour for the board symbol '" + symbol
                            + "' (colours: " + colours.keySet() + ")");
                }
                for (int y = 0; y < CELL; y++) {
                    for (int x = 0; x < CELL; x++) {
                        img.setRGB(c * CELL + x, r * CELL + y, rgb);
                    }
                }
            }
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            ImageIO.write(img, "png", png);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Image.png(png.toByteArray());
    }

    /**
     * The board's text from a picture drawn by {@link #draw} (each cell's centre colour); empty when it is not one:
     * a size that is not whole cells, or a colour that is no symbol's.
     */
    public static Optional<String> read(Image picture, Map<Character, Integer> colours) {
        BufferedImage img;
        try {
            img = ImageIO.read(new ByteArrayInputStream(picture.bytes()));
        } catch (IOException e) {
            return Optional.empty();
        }
        if (img == null || img.getWidth() % CELL != 0 || img.getHeight() % CELL != 0) {
            return Optional.empty();
        }
        Map<Integer, Character> symbols = new HashMap<>();
        colours.forEach((symbol, rgb) -> symbols.put(rgb & 0xFFFFFF, symbol));
        StringBuilder text = new StringBuilder();
        for (int r = 0; r < img.getHeight() / CELL; r++) {
            if (r > 0) {
                text.append('\n');
            }
            for (int c = 0; c < img.getWidth() / CELL; c++) {
                Character s = symbols.get(img.getRGB(c * CELL + CELL / 2, r * CELL + CELL / 2) & 0xFFFFFF);
                if (s == null) {
                    return Optional.empty();
                }
                text.append(s);
            }
        }
        return Optional.of(text.toString());
    }
}

package org.pettingllms.envs.planning;

import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The direction table of the move games' solver programs (Plan-Path, Sokoban): the four {@link Move}s in order, as the
 * Python tuple the programs loop over and as the row/column steps their Java mirrors take, with the up/down or the
 * left/right pair swapped (each move stepping the wrong way, one of the catalogs' flaws).
 */
public final class MoveTable {
    private MoveTable() {}

    /** The Python tuple, e.g. {@code (('U',-1,0),('D',1,0),('L',0,-1),('R',0,1))} when nothing is swapped. */
    public static String python(boolean swapUpDown, boolean swapLeftRight) {
        return Stream.of(Move.values())
                .map(m -> {
                    int s = sign(m, swapUpDown, swapLeftRight);
                    return "('" + m + "'," + s * m.dr + "," + s * m.dc + ")";
                })
                .collect(Collectors.joining(",", "(", ")"));
    }

    /** The row and column step of each move, in {@link Move} order, as the Python tuple says. */
    public static int[][] steps(boolean swapUpDown, boolean swapLeftRight) {
        return Stream.of(Move.values())
                .map(m -> {
                    int s = sign(m, swapUpDown, swapLeftRight);
                    return new int[] {s * m.dr, s * m.dc};
                })
                .toArray(int[][]::new);
    }

    private static int sign(Move m, boolean swapUpDown, boolean swapLeftRight) {
        boolean vertical = m.dr != 0;
        return (vertical ? swapUpDown : swapLeftRight) ? -1 : 1;
    }
}

package org.pettingllms.envs.planning;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Grid moves U/D/L/R = (-1,0), (+1,0), (0,-1), (0,+1), and how answers write them. */
public enum Move {
    U(-1, 0),
    D(1, 0),
    L(0, -1),
    R(0, 1);

    public final int dr;
    public final int dc;

    Move(int dr, int dc) {
        this.dr = dr;
        this.dc = dc;
    }

    public static final String CHAT_MARKER = "Actions List";
    private static final Pattern WORD = Pattern.compile("[A-Za-z]+");
    private static final Pattern COMPACT = Pattern.compile("[UDLR]+");
    /** Longest move list read from one answer: longer answers are unparseable rather than slow. */
    public static final int MAX_MOVES = 400;

    /**
     * Reads moves from an answer. Chat: the bracketed list after the last {@code Actions List} marker, items
     * U/D/L/R or up/down/left/right. Compact: the first non-empty line, letters UDLR (spaces and commas ignored).
     * Empty when the answer has no moves, an unknown item, or more than {@link #MAX_MOVES} moves.
     */
    public static Optional<List<Move>> parse(String answer) {
        int marker = answer.lastIndexOf(CHAT_MARKER);
        return marker >= 0 ? parseChat(answer.substring(marker + CHAT_MARKER.length())) : parseCompact(answer);
    }

    private static Optional<List<Move>> parseCompact(String answer) {
        String line = answer.strip().lines().findFirst().orElse("").replaceAll("[\\s,]", "");
        if (line.isEmpty()
                || line.length() > MAX_MOVES
                || !COMPACT.matcher(line).matches()) {
            return Optional.empty();
        }
        List<Move> moves = new ArrayList<>(line.length());
        for (char ch : line.toCharArray()) {
            moves.add(Move.valueOf(String.valueOf(ch)));
        }
        return Optional.of(moves);
    }

    private static Optional<List<Move>> parseChat(String afterMarker) {
        int open = afterMarker.indexOf('[');
        int close = open < 0 ? -1 : afterMarker.indexOf(']', open);
        if (close < 0) {
            return Optional.empty();
        }
        Matcher m = WORD.matcher(afterMarker.substring(open + 1, close));
        List<Move> moves = new ArrayList<>();
        while (m.find()) {
            Optional<Move> mv = word(m.group());
            if (mv.isEmpty() || moves.size() >= MAX_MOVES) {
                return Optional.empty();
            }
            moves.add(mv.get());
        }
        return moves.isEmpty() ? Optional.empty() : Optional.of(moves);
    }

    private static Optional<Move> word(String w) {
        return switch (w.toLowerCase(Locale.ROOT)) {
            case "u", "up" -> Optional.of(U);
            case "d", "down" -> Optional.of(D);
            case "l", "left" -> Optional.of(L);
            case "r", "right" -> Optional.of(R);
            default -> Optional.empty();
        };
    }

    /** Compact form {@code RRDL}. */
    public static String compact(List<Move> moves) {
        StringBuilder sb = new StringBuilder(moves.size());
        moves.forEach(m -> sb.append(m.name()));
        return sb.toString();
    }

    /** Chat form {@code **Actions List**: ["R", "R", "D"]}. */
    public static String chat(List<Move> moves) {
        return "**" + CHAT_MARKER + "**: "
                + moves.stream().map(m -> "\"" + m.name() + "\"").toList();
    }

    public static List<Move> random(SplittableRandom rng, int count) {
        List<Move> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(values()[rng.nextInt(4)]);
        }
        return out;
    }

    public static final String CHAT_ANSWER_FORMAT = "Think briefly, then end your answer with the moves as "
            + "**Actions List**: [\"U\", \"R\", ...] using U (up, row - 1), D (down, row + 1), L (left, column - 1) "
            + "and R (right, column + 1).";
}

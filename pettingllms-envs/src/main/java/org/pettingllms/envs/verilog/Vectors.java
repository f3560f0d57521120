package org.pettingllms.envs.verilog;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tester's testbench: one line per step, inputs then expected outputs, {@code a=3 b=5 -> y=8}. Values are decimal,
 * {@code 0x}/{@code 0b} prefixed, or Verilog literals ({@code 4'b0101}, {@code 'hf}). An input a line does not set
 * keeps its value from the line before (0 at first); a sequential module's lines are consecutive clock cycles from
 * power-on (a bench starts with {@code reset=1}), and {@code clk} is the bench's, not the tester's. A line that names
 * an unknown port, a value too wide, or no output is skipped.
 */
final class Vectors {
    /** One step: every driven input's value, and the outputs it checks (port index in {@link VerilogItem#outputs}). */
    record Vector(List<BigInteger> inputs, Map<Integer, BigInteger> expected) {
        Vector {
            inputs = List.copyOf(inputs);
            expected = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(expected)); // in port order
        }

        Vector(BigInteger[] inputs, Map<Integer, BigInteger> expected) {
            this(List.of(inputs), expected);
        }

        /** The driven inputs' values, as the bench takes them. */
        BigInteger[] values() {
            return inputs.toArray(BigInteger[]::new);
        }

        /**
         * The inputs as a failure line shows them: a combinational module of one-bit inputs as a row of its truth
         * table, {@code {a, b, c}=110}, the notation of its specification's rows and of the designs that list them
         * (a row a designer can copy); otherwise as the tester writes them ({@link #describe}).
         */
        String row(VerilogItem item) {
            List<Port> driven = item.driven();
            if (item.sequential() || driven.size() < 2 || driven.stream().anyMatch(p -> p.width() != 1)) {
                return describe(item);
            }
            StringBuilder bits = new StringBuilder();
            inputs.forEach(bits::append);
            return "{" + String.join(", ", driven.stream().map(Port::name).toList()) + "}=" + bits;
        }

        String describe(VerilogItem item) {
            List<Port> driven = item.driven();
            List<String> parts = new ArrayList<>();
            for (int j = 0; j < driven.size(); j++) {
                parts.add(driven.get(j).name() + "=" + inputs.get(j));
            }
            return String.join(" ", parts);
        }
    }

    private static final Pattern ASSIGN = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*([0-9A-Za-z_']+)");

    private Vectors() {}

    static List<Vector> parse(String text, VerilogItem item, int max) {
        List<Port> driven = item.driven();
        List<Port> outs = item.outputs();
        BigInteger[] current = new BigInteger[driven.size()];
        java.util.Arrays.fill(current, BigInteger.ZERO);
        List<Vector> vectors = new ArrayList<>();
        for (String raw : text.split("\n")) {
            int arrow = raw.indexOf("->");
            if (arrow < 0 || vectors.size() >= max) {
                continue;
            }
            BigInteger[] inputs = current.clone();
            Map<Integer, BigInteger> expected = new LinkedHashMap<>();
            if (!assign(raw.substring(0, arrow), driven, inputs, null)
                    || !assign(raw.substring(arrow + 2), outs, null, expected)
                    || expected.isEmpty()) {
                continue;
            }
            current = inputs;
            vectors.add(new Vector(inputs, expected));
        }
        return vectors;
    }

    /** Reads {@code name=value} pairs of {@code ports} into {@code values} (by position) or {@code named}. */
    private static boolean assign(String part, List<Port> ports, BigInteger[] values, Map<Integer, BigInteger> named) {
        Matcher m = ASSIGN.matcher(part);
        int end = 0;
        while (m.find()) {
            if (!part.substring(end, m.start()).matches("[\\s,;]*")) {
                return false;
            }
            end = m.end();
            int j = indexOf(ports, m.group(1));
            BigInteger v = value(m.group(2));
            if (j < 0 || v == null || !ports.get(j).holds(v)) {
                return false;
            }
            if (values != null) {
                values[j] = v;
            } else {
                named.put(j, v);
            }
        }
        return part.substring(end).matches("[\\s,;.]*");
    }

    private static int indexOf(List<Port> ports, String name) {
        for (int j = 0; j < ports.size(); j++) {
            if (ports.get(j).name().equals(name)) {
                return j;
            }
        }
        return -1;
    }

    /** A number as the tester may write it, or null. */
    static BigInteger value(String s) {
        String t = s.toLowerCase(Locale.ROOT).replace("_", "");
        int radix = 10;
        int tick = t.indexOf('\'');
        if (tick >= 0) {
            if (tick + 2 > t.length()) {
                return null;
            }
            radix = switch (t.charAt(tick + 1)) {
                case 'b' -> 2;
                case 'o' -> 8;
                case 'd' -> 10;
                case 'h' -> 16;
                default -> 0;
            };
            t = t.substring(tick + 2);
        } else if (t.startsWith("0x")) {
            radix = 16;
            t = t.substring(2);
        } else if (t.startsWith("0b")) {
            radix = 2;
            t = t.substring(2);
        }
        if (radix == 0 || t.isEmpty() || t.length() > Port.MAX_WIDTH) {
            return null;
        }
        try {
            return new BigInteger(t, radix);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The vectors as a tester writes them (the oracle's bench, demonstrations). */
    static String render(List<Vector> vectors, VerilogItem item) {
        StringBuilder sb = new StringBuilder();
        List<Port> outs = item.outputs();
        for (Vector v : vectors) {
            sb.append(v.describe(item)).append(" ->");
            v.expected()
                    .forEach((j, e) -> sb.append(' ')
                            .append(outs.get(j).name())
                            .append('=')
                            .append(e));
            sb.append('\n');
        }
        return sb.toString();
    }
}

package org.pettingllms.envs.verilog;

/**
 * A port of the module a designer writes ({@code TopModule}).
 *
 * @param name  its Verilog name
 * @param width its width in bits (1 to 62: a value fits a {@code long})
 * @param input whether it is an input
 */
public record Port(String name, int width, boolean input) {
    public static final int MAX_WIDTH = 62;

    public Port {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("port name '" + name + "' is not a Verilog identifier");
        }
        if (width < 1 || width > MAX_WIDTH) {
            throw new IllegalArgumentException("port " + name + ": width must be 1 to " + MAX_WIDTH + ", got " + width);
        }
    }

    public static Port in(String name, int width) {
        return new Port(name, width, true);
    }

    public static Port out(String name, int width) {
        return new Port(name, width, false);
    }

    /** The largest value the port holds. */
    public long max() {
        return (1L << width) - 1;
    }

    /** As a module header declares it: {@code input [3:0] a}. */
    public String declaration() {
        return (input ? "input " : "output ") + (width > 1 ? "[" + (width - 1) + ":0] " : "") + name;
    }

    /** {@code value} as the simulator prints the port ({@code %b}: {@code width} binary digits). */
    public String bits(long value) {
        String b = Long.toBinaryString(value);
        return "0".repeat(Math.max(0, width - b.length())) + b;
    }
}

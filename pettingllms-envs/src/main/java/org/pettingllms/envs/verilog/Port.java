package org.pettingllms.envs.verilog;

import java.math.BigInteger;

/**
 * A port of the module a designer writes ({@code TopModule}).
 *
 * @param name  its Verilog name
 * @param width its width in bits (1 to {@value #MAX_WIDTH})
 * @param input whether it is an input
 * @param type  how the header declares an output: {@code ""} (a wire), {@code reg} (assigned in an {@code always}
 *              block) or {@code logic} (SystemVerilog: either)
 */
public record Port(String name, int width, boolean input, String type) {
    public static final int MAX_WIDTH = 4096;

    public Port {
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("port name '" + name + "' is not a Verilog identifier");
        }
        if (width < 1 || width > MAX_WIDTH) {
            throw new IllegalArgumentException("port " + name + ": width must be 1 to " + MAX_WIDTH + ", got " + width);
        }
        if (!type.isEmpty() && (input || !type.equals("reg") && !type.equals("logic"))) {
            throw new IllegalArgumentException("port " + name + ": an output's type is '', reg or logic, got " + type);
        }
    }

    public static Port in(String name, int width) {
        return new Port(name, width, true, "");
    }

    public static Port out(String name, int width) {
        return new Port(name, width, false, "");
    }

    public static Port outReg(String name, int width) {
        return new Port(name, width, false, "reg");
    }

    /** Whether the port holds {@code value}. */
    public boolean holds(BigInteger value) {
        return value.signum() >= 0 && value.bitLength() <= width;
    }

    /** As a module header declares it: {@code input [3:0] a}. */
    public String declaration() {
        return (input ? "input " : type.isEmpty() ? "output " : "output " + type + " ")
                + (width > 1 ? "[" + (width - 1) + ":0] " : "")
                + name;
    }

    /** {@code value} as the simulator prints the port ({@code %b}: {@code width} binary digits). */
    public String bits(BigInteger value) {
        String b = value.toString(2);
        return "0".repeat(Math.max(0, width - b.length())) + b;
    }
}

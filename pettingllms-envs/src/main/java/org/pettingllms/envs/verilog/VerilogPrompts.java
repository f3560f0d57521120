package org.pettingllms.envs.verilog;

import org.pettingllms.core.data.Prompt;
import org.pettingllms.envs.data.CompactPrompts;

/**
 * Prompts of the hardware team. Both roles read the specification (the designer its brief, where it has one:
 * {@link VerilogItem#brief}) and the module header. The designer writes the
 * module ({@code chat}: in a ```verilog``` block; {@code compact}: the module's body alone, the header is given); from
 * its second turn it sees its latest design, why it did not compile, and its failures on the tester's vectors
 * (inputs, expected, got). The tester writes one vector a line, {@code a=3 b=5 -> y=8} ({@link Vectors}); it sees the
 * latest design's failures on its previous vectors. The compact style (small models) keeps a header line, the
 * specification, the module header, at most three failures, for a designer's revision its latest body (last, so that
 * a small model's revision starts from it), and a {@code >} cue.
 */
final class VerilogPrompts {
    static final String DESIGNER_SYSTEM =
            "You are an expert digital hardware designer who writes synthesizable Verilog.";
    static final String TESTER_SYSTEM =
            "You are an expert hardware verification engineer who writes test vectors from a specification.";
    private static final int MAX_COMPACT_FAILS = 3;
    private static final int MAX_DESIGN_CHARS = 3000;

    private VerilogPrompts() {}

    static Prompt compact(String taskId, VerilogState s, String role) {
        StringBuilder sb = CompactPrompts.header(taskId, role)
                .append(spec(s.item(), role))
                .append('\n')
                .append(s.item().header())
                .append('\n');
        boolean revising = role.equals(VerilogTask.DESIGNER) && s.design() != null;
        if (revising && !s.problem().isEmpty()) {
            sb.append("error ").append(oneLine(s.problem())).append('\n');
        }
        for (Judge.Mismatch m : s.mismatches()
                .subList(0, Math.min(MAX_COMPACT_FAILS, s.mismatches().size()))) {
            sb.append("fail ")
                    .append(m.inputs())
                    .append(" -> ")
                    .append(m.expected())
                    .append(" got ")
                    .append(m.got())
                    .append('\n');
        }
        if (s.mismatches().isEmpty()
                && !s.tests().isEmpty()
                && s.design() != null
                && s.problem().isEmpty()) {
            sb.append("pass ").append(s.tests().size()).append('\n');
        }
        if (revising) { // the design last, just before the cue: a small model revises what it has just read
            sb.append(clip(body(s.design()).strip())).append('\n');
        }
        return CompactPrompts.cue(sb);
    }

    static Prompt chat(VerilogState s, String role) {
        StringBuilder u = new StringBuilder("Specification:\n")
                .append(spec(s.item(), role))
                .append("\n\nModule header:\n```verilog\n")
                .append(s.item().header())
                .append("\n```\n");
        if (generatedClocked(s.item())) {
            u.append("clk is the clock; reset is synchronous and active high.\n");
        }
        u.append('\n');
        if (s.design() != null) {
            u.append("Current design:\n```verilog\n")
                    .append(clip(s.design().strip()))
                    .append("\n```\n\n");
            if (!s.problem().isEmpty()) {
                u.append("It did not simulate: ").append(oneLine(s.problem())).append("\n\n");
            }
        }
        if (!s.mismatches().isEmpty()) {
            u.append("Failures of the current design on the tester's vectors:\n");
            for (Judge.Mismatch m : s.mismatches()) {
                u.append("- ")
                        .append(m.inputs())
                        .append(": expected ")
                        .append(m.expected())
                        .append(", got ")
                        .append(m.got())
                        .append('\n');
            }
            u.append('\n');
        }
        if (role.equals(VerilogTask.DESIGNER)) {
            u.append("Write the complete module ")
                    .append(VerilogItem.TOP)
                    .append(" with exactly this header in one ```verilog``` block.");
            if (s.design() != null) {
                u.append(" Fix the design if the failures show it is wrong.");
            }
            return Prompt.chat(DESIGNER_SYSTEM, u.toString());
        }
        u.append("Write test vectors, one per line, inputs then the expected outputs, for example\n")
                .append(example(s.item()))
                .append("\nAn input you do not set keeps its previous value.");
        if (s.item().sequential()) {
            u.append(" Each line is one clock cycle from power-on (clk is driven for you)");
            u.append(generatedClocked(s.item()) ? ": start with reset=1." : ".");
        }
        u.append(" Put them in one ``` block.");
        return Prompt.chat(TESTER_SYSTEM, u.toString());
    }

    /** The designer reads its brief where it has one (the tester's specification says more), the tester the spec. */
    private static String spec(VerilogItem item, String role) {
        return (role.equals(VerilogTask.DESIGNER) ? item.designerSpec() : item.spec()).strip();
    }

    /** A generated sequential module: its reset is ours (synchronous, active high); a dataset's spec says its own. */
    private static boolean generatedClocked(VerilogItem item) {
        return item.sequential() && item.harness().isEmpty() && item.ports().contains(Port.in("reset", 1));
    }

    private static String example(VerilogItem item) {
        StringBuilder sb = new StringBuilder();
        for (Port p : item.driven()) {
            sb.append(p.name())
                    .append("=")
                    .append(p.name().equals("reset") ? 1 : 0)
                    .append(' ');
        }
        sb.append("->");
        for (Port p : item.outputs()) {
            sb.append(' ').append(p.name()).append("=0");
        }
        return sb.toString();
    }

    /** A design without its header line and {@code endmodule}, as a compact designer writes it. */
    static String body(String design) {
        String d = design.strip();
        int header = d.indexOf(");");
        if (d.startsWith("module") && header >= 0) {
            d = d.substring(header + 2);
        }
        if (d.endsWith("endmodule")) {
            d = d.substring(0, d.length() - "endmodule".length());
        }
        return d.strip();
    }

    private static String oneLine(String text) {
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() > 120 ? line.substring(0, 120) : line;
    }

    private static String clip(String text) {
        return text.length() > MAX_DESIGN_CHARS ? text.substring(0, MAX_DESIGN_CHARS) + "\n..." : text;
    }
}

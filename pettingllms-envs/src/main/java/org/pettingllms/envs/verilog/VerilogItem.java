package org.pettingllms.envs.verilog;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One hardware design problem: a specification in words of the module {@code TopModule} with the given ports, and the
 * hidden reference design the judge compares against.
 *
 * @param spec       the specification the tester reads (and the designer, unless {@code brief} is given)
 * @param ports      the module's ports in header order; a sequential module has the clock {@code clk} (and, when
 *                   generated, a synchronous active-high {@code reset})
 * @param sequential whether the module is clocked: the judge drives {@code clk} and samples after each rising edge
 * @param reference  the reference design (module {@code TopModule}); never shown to a role
 * @param mutants    plausible wrong designs (module {@code TopModule}) a good testbench tells from the reference:
 *                   the tester's discrimination reward; empty for a dataset row
 * @param harness    a dataset's own test harness (its reference module and testbench, as VerilogEval ships them),
 *                   run with the design instead of the generated hidden bench; empty for a generated row
 * @param brief      what the designer reads instead of {@code spec} where the tester's specification says more
 *                   (a generated truth table: the designer's copy does not say whether y is active high or low, so a
 *                   designer alone must guess and a team learns it from the tester's failing vectors); empty when
 *                   both read {@code spec}. The brief allows two designs: the reference and the last of
 *                   {@code mutants}
 * @param briefReading the design the brief describes read to the letter: 0 for the reference, else the 1-based wrong
 *                   design (the last); 0 without a brief
 */
public record VerilogItem(
        String id,
        String spec,
        List<Port> ports,
        boolean sequential,
        String reference,
        List<String> mutants,
        String harness,
        String brief,
        int briefReading) {
    public static final String TOP = "TopModule";

    public VerilogItem {
        ports = List.copyOf(ports);
        mutants = List.copyOf(mutants);
        if (sequential && !ports.contains(Port.in("clk", 1))) {
            throw new IllegalArgumentException(id + ": a sequential module has a 1-bit input clk");
        }
        if (!brief.isEmpty() && mutants.isEmpty()) {
            throw new IllegalArgumentException(id + ": a brief allows the reference and the last wrong design");
        }
        if (briefReading != 0 && (brief.isEmpty() || briefReading != mutants.size())) {
            throw new IllegalArgumentException(
                    id + ": a brief's reading to the letter is the reference (0) or the last wrong design");
        }
    }

    /** The specification the designer reads. */
    public String designerSpec() {
        return brief.isEmpty() ? spec : brief;
    }

    /**
     * The other design a brief allows (the reference where the letter is the last wrong design, else that one); 0
     * without a brief.
     */
    public int briefAlternative() {
        return brief.isEmpty() ? 0 : briefReading == 0 ? mutants.size() : 0;
    }

    /** The module header the designer must implement. */
    public String header() {
        return "module " + TOP + "(" + ports.stream().map(Port::declaration).collect(Collectors.joining(", ")) + ");";
    }

    /** The inputs a test drives: every input but a sequential module's clock. */
    public List<Port> driven() {
        return ports.stream()
                .filter(p -> p.input() && !(sequential && p.name().equals("clk")))
                .toList();
    }

    public List<Port> outputs() {
        return ports.stream().filter(p -> !p.input()).toList();
    }
}
